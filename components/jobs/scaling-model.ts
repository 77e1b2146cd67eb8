import type { ClusterEvent } from "@/server/cluster/types";
import type { LiveJob } from "@/server/domain/operator-api/contract";

/**
 * An elastic job's scaling history as the job page shows it: sizes over time with reasons, and target vs
 * actual replicas. From the scaling history rows (ScalingEvent, server/store/scaling-events) where the page
 * has them, else from the operator's events (`Scaling`, `Scaled`, `ScalingFailed`), which carry the same facts.
 */

export type ScalingReason = "ScaleUp" | "Preempted" | "FaultyScaleDown" | "Unknown";
export type ScalingEntry = {
  at: number;
  from: number;
  to: number;
  reason: ScalingReason;
  outcome: "Scaled" | "Failed" | "InProgress";
  message: string;
};
export type ScalingRowLike = {
  fromReplicas: number;
  toReplicas: number;
  reason: string;
  outcome: string;
  message: string;
  startedAt: Date | string | number;
  finishedAt: Date | string | number;
};
export type ScalingSummary = {
  target: number | null;
  actual: number | null;
  min: number | null;
  max: number | null;
  why: string | null;
  entries: ScalingEntry[];
};

const REASONS: Record<string, ScalingReason> = {
  "capacity is free": "ScaleUp",
  "higher-priority work needs its capacity": "Preempted",
  "failed replicas did not come back in time": "FaultyScaleDown",
};
export const REASON_TEXT: Record<ScalingReason, string> = {
  ScaleUp: "Capacity free: scaled up",
  Preempted: "Preempted: scaled down for higher-priority work",
  FaultyScaleDown: "Failed replicas not back in time: scaled down",
  Unknown: "Scaled",
};

const SCALING = /^Scaling from (\d+) to (\d+) replicas: (.*)$/;
const SCALED = /^Scaled from (\d+) to (\d+) replicas/;
const FAILED = /^Scaling from (\d+) to (\d+) replicas failed: (.*)$/;

function reasonOf(value: string): ScalingReason {
  return value === "ScaleUp" || value === "Preempted" || value === "FaultyScaleDown" ? value : "Unknown";
}

function begun(event: ClusterEvent): ScalingEntry | null {
  const match = event.reason === "Scaling" ? SCALING.exec(event.message) : null;
  if (!match) return null;
  const reason = REASONS[match[3] ?? ""] ?? "Unknown";
  return {
    at: event.at,
    from: Number(match[1]),
    to: Number(match[2]),
    reason,
    outcome: "InProgress",
    message: "",
  };
}

function ending(event: ClusterEvent): "Scaled" | "Failed" | null {
  if (event.reason === "Scaled" && SCALED.test(event.message)) return "Scaled";
  if (event.reason === "ScalingFailed" && FAILED.test(event.message)) return "Failed";
  return null;
}

/** Each `Scaling` event begins an entry; the `Scaled` or `ScalingFailed` after it ends it. */
export function entriesFromEvents(events: readonly ClusterEvent[]): ScalingEntry[] {
  const entries: ScalingEntry[] = [];
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const entry = begun(event);
    if (entry) {
      entries.push(entry);
      continue;
    }
    const outcome = ending(event);
    const last = entries.at(-1);
    if (!outcome || last?.outcome !== "InProgress") continue;
    last.outcome = outcome;
    last.message = event.message;
  }
  return entries;
}

export function entriesFromRows(rows: readonly ScalingRowLike[]): ScalingEntry[] {
  return rows.map((row) => ({
    at: new Date(row.startedAt).getTime(),
    from: row.fromReplicas,
    to: row.toReplicas,
    reason: reasonOf(row.reason),
    outcome: row.outcome === "Failed" ? "Failed" : "Scaled",
    message: row.message,
  }));
}

/** null: not an elastic job (no elastic view and no scaling ever). */
export function scalingSummary(input: {
  events: readonly ClusterEvent[];
  elastic?: LiveJob["elastic"];
  rows?: readonly ScalingRowLike[];
}): ScalingSummary | null {
  const entries = input.rows ? entriesFromRows(input.rows) : entriesFromEvents(input.events);
  const elastic = input.elastic ?? null;
  if (!elastic && entries.length === 0) return null;
  const last = entries.at(-1);
  const inProgress = last?.outcome === "InProgress" ? last : null;
  const lastScaled = [...entries].reverse().find((e) => e.outcome === "Scaled");
  return {
    target: elastic?.targetReplicas ?? inProgress?.to ?? lastScaled?.to ?? null,
    actual: elastic?.actualReplicas ?? inProgress?.from ?? lastScaled?.to ?? null,
    min: elastic?.min ?? null,
    max: elastic?.max ?? null,
    why: elastic?.why ?? null,
    entries,
  };
}

/** The size over time as steps: one point per change, from `start` to `now`. */
export function sizeSteps(
  entries: readonly ScalingEntry[],
  opts: { start: number; now: number; initial: number },
) {
  const points: { t: number; size: number }[] = [{ t: opts.start, size: entries[0]?.from ?? opts.initial }];
  for (const entry of entries) if (entry.outcome === "Scaled") points.push({ t: entry.at, size: entry.to });
  points.push({ t: opts.now, size: points.at(-1)?.size ?? opts.initial });
  return points;
}
