import {
  type SchedulerUpdateInput,
  type SchedulerView,
  schedulerUpdateInputSchema,
} from "@/server/services/governance/governance.schema";
import { type FieldErrors, fieldErrorsOf } from "../form-errors";

/** The scheduler editor's state (HyperPod ClusterSchedulerConfig): weights as typed text. */
export type PriorityClassDraft = {
  id: string;
  name: string;
  weight: string;
  description: string;
  jobs: number;
};

export type SchedulerDraft = {
  taskRanking: boolean;
  fairShare: boolean;
  idleResourceSharing: boolean;
  priorityClasses: PriorityClassDraft[];
};

let nextId = 0;
const newId = () => `class-${++nextId}`;

export function schedulerDraftOf(view: SchedulerView): SchedulerDraft {
  return {
    taskRanking: view.taskRanking,
    fairShare: view.fairShare,
    idleResourceSharing: view.idleResourceSharing,
    priorityClasses: view.priorityClasses.map((entry) => ({
      id: newId(),
      name: entry.name,
      weight: String(entry.weight),
      description: entry.description,
      jobs: entry.jobs,
    })),
  };
}

export function emptyPriorityClass(): PriorityClassDraft {
  return { id: newId(), name: "", weight: "0", description: "", jobs: 0 };
}

const numberOr = (text: string): number | string => {
  const trimmed = text.trim();
  return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
};

export function schedulerInputOf(draft: SchedulerDraft, version: number): unknown {
  return {
    version,
    taskRanking: draft.taskRanking,
    fairShare: draft.fairShare,
    idleResourceSharing: draft.idleResourceSharing,
    priorityClasses: draft.priorityClasses.map((entry) => ({
      name: entry.name.trim(),
      weight: numberOr(entry.weight),
      ...(entry.description ? { description: entry.description } : {}),
    })),
  };
}

export type SchedulerCheck = { ok: true; input: SchedulerUpdateInput } | { ok: false; errors: FieldErrors };

export function checkSchedulerDraft(draft: SchedulerDraft, version: number): SchedulerCheck {
  const parsed = schedulerUpdateInputSchema.safeParse(schedulerInputOf(draft, version));
  if (parsed.success) return { ok: true, input: parsed.data };
  return { ok: false, errors: fieldErrorsOf(parsed.error.issues) };
}
