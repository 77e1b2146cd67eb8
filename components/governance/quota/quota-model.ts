import {
  type QuotaUpdateInput,
  type QuotaView,
  quotaUpdateInputSchema,
} from "@/server/services/governance/governance.schema";
import { type FieldErrors, fieldErrorsOf } from "../form-errors";

/**
 * The quota editor's state: what the user typed (numbers as text, so a half-typed value stays on screen),
 * turned into the router's input and checked with the router's own schema on every change. Memory is
 * typed in GiB and sent in bytes (the base unit the server keeps).
 */
export type ResourceDraft = {
  /** A stable React key for the row (rows can be added and removed). */
  id: string;
  instanceType: string;
  resource: string;
  guaranteed: string;
  /** "" = no absolute cap (the percent applies). */
  absoluteBorrowLimit: string;
};

type Knobs = QuotaView["kueue"];

/** The advanced Kueue settings as typed: "" = none (no threshold, lend everything, from PreemptTeamTasks). */
export type KueueDraft = {
  reclaimWithinCohort: Knobs["reclaimWithinCohort"];
  borrowPolicy: Knobs["borrowWithinCohort"]["policy"];
  maxPriorityThreshold: string;
  lendingLimit: string;
  queueingStrategy: Knobs["queueingStrategy"];
  withinClusterQueue: NonNullable<Knobs["withinClusterQueue"]> | "";
};

export type QuotaDraft = {
  activation: QuotaView["activation"];
  strategy: QuotaView["strategy"];
  borrowLimitPercent: string;
  preemptTeamTasks: QuotaView["preemptTeamTasks"];
  fairShareWeight: string;
  resources: ResourceDraft[];
  kueue: KueueDraft;
};

const GIB = 2 ** 30;

/** How many base units one typed unit is: memory in GiB, everything else as is. */
export function unitFactor(resource: string): number {
  return resource === "memory" ? GIB : 1;
}

export function unitLabel(resource: string): string {
  if (resource === "memory") return "GiB";
  if (resource === "cpu") return "cores";
  return "count";
}

const typed = (amount: number, resource: string) =>
  String(Number((amount / unitFactor(resource)).toFixed(3)));

/** Text → number; text that is not a number stays text, so the schema names the field ("expected a number"). */
function amountOf(text: string, resource: string): number | string {
  const trimmed = text.trim();
  if (trimmed === "") return trimmed;
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return trimmed;
  const factor = unitFactor(resource);
  return factor === 1 ? value : Math.round(value * factor);
}

function wholeOf(text: string): number | string {
  const trimmed = text.trim();
  return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

let nextId = 0;
export const newRowId = () => `row-${++nextId}`;

const optionalText = (value: number | null) => (value === null ? "" : String(value));
const optionalWhole = (text: string) => (text.trim() === "" ? null : wholeOf(text));

function kueueDraftOf(knobs: Knobs): KueueDraft {
  return {
    reclaimWithinCohort: knobs.reclaimWithinCohort,
    borrowPolicy: knobs.borrowWithinCohort.policy,
    maxPriorityThreshold: optionalText(knobs.borrowWithinCohort.maxPriorityThreshold),
    lendingLimit: optionalText(knobs.lendingLimit),
    queueingStrategy: knobs.queueingStrategy,
    withinClusterQueue: knobs.withinClusterQueue ?? "",
  };
}

function kueueInputOf(draft: KueueDraft) {
  return {
    reclaimWithinCohort: draft.reclaimWithinCohort,
    borrowWithinCohort: {
      policy: draft.borrowPolicy,
      maxPriorityThreshold: optionalWhole(draft.maxPriorityThreshold),
    },
    lendingLimit: optionalWhole(draft.lendingLimit),
    queueingStrategy: draft.queueingStrategy,
    withinClusterQueue: draft.withinClusterQueue === "" ? null : draft.withinClusterQueue,
  };
}

export function draftOf(view: QuotaView): QuotaDraft {
  return {
    kueue: kueueDraftOf(view.kueue),
    activation: view.activation,
    strategy: view.strategy,
    borrowLimitPercent: String(view.borrowLimitPercent),
    preemptTeamTasks: view.preemptTeamTasks,
    fairShareWeight: String(view.fairShareWeight),
    resources: view.resources.map((row) => ({
      id: newRowId(),
      instanceType: row.instanceType,
      resource: row.resource,
      guaranteed: typed(row.guaranteed, row.resource),
      absoluteBorrowLimit:
        row.absoluteBorrowLimit === null ? "" : typed(row.absoluteBorrowLimit, row.resource),
    })),
  };
}

export function emptyResource(): ResourceDraft {
  return {
    id: newRowId(),
    instanceType: "default",
    resource: "nvidia.com/gpu",
    guaranteed: "0",
    absoluteBorrowLimit: "",
  };
}

/** The router's input for this draft (not yet valid: that is what `checkDraft` tells). */
export function inputOf(draft: QuotaDraft, target: { team: string; version: number }): unknown {
  return {
    team: target.team,
    version: target.version,
    activation: draft.activation,
    strategy: draft.strategy,
    borrowLimitPercent: wholeOf(draft.borrowLimitPercent),
    preemptTeamTasks: draft.preemptTeamTasks,
    fairShareWeight: wholeOf(draft.fairShareWeight),
    kueue: kueueInputOf(draft.kueue),
    resources: draft.resources.map((row) => ({
      instanceType: row.instanceType.trim(),
      resource: row.resource.trim(),
      guaranteed: amountOf(row.guaranteed, row.resource),
      absoluteBorrowLimit:
        row.absoluteBorrowLimit.trim() === "" ? null : amountOf(row.absoluteBorrowLimit, row.resource),
    })),
  };
}

export type DraftCheck = { ok: true; input: QuotaUpdateInput } | { ok: false; errors: FieldErrors };

/** The router's schema over the draft: the valid input, or a message per dotted field path. */
export function checkDraft(draft: QuotaDraft, target: { team: string; version: number }): DraftCheck {
  const parsed = quotaUpdateInputSchema.safeParse(inputOf(draft, target));
  if (parsed.success) return { ok: true, input: parsed.data };
  return { ok: false, errors: fieldErrorsOf(parsed.error.issues) };
}
