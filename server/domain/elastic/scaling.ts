import { largestAllowedAtMost } from "./sizes";

/**
 * The elastic scaling state machine (docs/hyperpod-compatibility.md, "Elastic training"), pure: given what
 * the job remembers and what it sees now, whether to scale and to what. Times are epoch ms.
 *
 * - Scale-down for a preemption: at once, to the largest allowed size still admitted.
 * - Scale-down for faults: failed replicas not back within `faultyScaleDownTimeoutInSeconds` of the fault ⇒
 *   the largest allowed size the healthy replicas make (never below minReplicas: the job then waits for its
 *   recovery as any job does).
 * - Scale-up: a larger allowed size admitted without a break for `scalingTimeoutInSeconds` (stabilisation),
 *   and none before: `scalingTimeoutInSeconds` since the last scaling (minimum stability),
 *   `scaleUpSnoozeTimeInSeconds` since the last restart (snooze), and the back-off after failed scalings
 *   (`backoffMs(consecutiveScalingFailures)`). While a scale-up may not happen the job asks for no capacity
 *   above its size (HyperPod: "no scale up/workload admission is allowed").
 */

export type ScalingTimers = {
  /** Stabilisation before a scale-up, and the minimum time between two scalings. */
  scalingTimeoutMs: number;
  /** After a restart of the job (a fault's recovery), no scale-up for this long. */
  snoozeMs: number;
  /** Failed replicas not back for this long ⇒ scale down; null: never. */
  faultyScaleDownMs: number | null;
};

export type ScalingMemory = {
  /** The world size (replicas) the job runs at. */
  size: number;
  lastScalingAt: number | null;
  lastRestartAt: number | null;
  /** consecutiveScalingFailures: scalings in a row that failed (reset by one that completes). */
  failures: number;
  lastFailureAt: number | null;
  /** Since when a size larger than `size` has been admitted without a break (stabilisation); null: none. */
  upSince: number | null;
};

export type ScalingInput = {
  now: number;
  /** The allowed sizes, ascending (allowedSizes). */
  sizes: readonly number[];
  /** The largest size whose capacity is admitted now. */
  admitted: number;
  /** A preemption took capacity: the largest size still admitted; null: none. */
  preemptedTo: number | null;
  /** Replicas failed and not back: since when, and how many replicas are healthy; null: none. */
  faulty: { since: number; healthy: number } | null;
};

export type ScalingReason = "ScaleUp" | "Preempted" | "FaultyScaleDown";

export type ScalingDecision =
  | {
      kind: "hold";
      /** The size to hold capacity for: the largest allowed size while a scale-up may come, else `size`. */
      ask: number;
      /** When to look again (a stabilisation, snooze or back-off ends); null: at the next change. */
      until: number | null;
      /** Why no scaling now, for the console ("stabilising", "snoozed after a restart", …); null: nothing to do. */
      why: string | null;
      memory: ScalingMemory;
    }
  | { kind: "scale"; to: number; reason: ScalingReason; memory: ScalingMemory };

/** Back-off after failed scalings: 10 s, doubling per failure in a row, at most 10 minutes. */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_MAX_MS = 600_000;

export function backoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 30));
}

/** The policy's timers in ms; HyperPod is silent on defaults, so: 60 s stabilisation, 0 s snooze. */
export const DEFAULT_SCALING_TIMEOUT_SECONDS = 60;

export function scalingTimers(policy: {
  scalingTimeoutInSeconds?: number | undefined;
  faultyScaleDownTimeoutInSeconds?: number | undefined;
  scaleUpSnoozeTimeInSeconds?: number | undefined;
}): ScalingTimers {
  return {
    scalingTimeoutMs: (policy.scalingTimeoutInSeconds ?? DEFAULT_SCALING_TIMEOUT_SECONDS) * 1000,
    snoozeMs: (policy.scaleUpSnoozeTimeInSeconds ?? 0) * 1000,
    faultyScaleDownMs:
      policy.faultyScaleDownTimeoutInSeconds === undefined
        ? null
        : policy.faultyScaleDownTimeoutInSeconds * 1000,
  };
}

export function initialMemory(size: number): ScalingMemory {
  return { size, lastScalingAt: null, lastRestartAt: null, failures: 0, lastFailureAt: null, upSince: null };
}

/** The first moment a scale-up may happen, and what holds it until then (null: nothing). */
function blockedUntil(memory: ScalingMemory, timers: ScalingTimers): { until: number; why: string } | null {
  const blocks: { until: number; why: string }[] = [];
  if (memory.lastScalingAt !== null)
    blocks.push({
      until: memory.lastScalingAt + timers.scalingTimeoutMs,
      why: "stable since the last scaling",
    });
  if (memory.lastRestartAt !== null && timers.snoozeMs > 0)
    blocks.push({ until: memory.lastRestartAt + timers.snoozeMs, why: "snoozed after a restart" });
  if (memory.lastFailureAt !== null && memory.failures > 0)
    blocks.push({
      until: memory.lastFailureAt + backoffMs(memory.failures),
      why: `backing off after ${memory.failures} failed scaling(s)`,
    });
  let latest: { until: number; why: string } | null = null;
  for (const block of blocks) if (latest === null || block.until > latest.until) latest = block;
  return latest;
}

function scaleDown(
  memory: ScalingMemory,
  input: ScalingInput,
  timers: ScalingTimers,
): ScalingDecision | null {
  const size = memory.size;
  if (input.preemptedTo !== null && input.preemptedTo < size) {
    const to = largestAllowedAtMost(input.sizes, input.preemptedTo) ?? input.sizes[0] ?? size;
    if (to < size) return { kind: "scale", to, reason: "Preempted", memory: { ...memory, upSince: null } };
  }
  const faulty = input.faulty;
  if (faulty && timers.faultyScaleDownMs !== null && input.now >= faulty.since + timers.faultyScaleDownMs) {
    const to = largestAllowedAtMost(input.sizes, faulty.healthy);
    if (to !== null && to < size)
      return { kind: "scale", to, reason: "FaultyScaleDown", memory: { ...memory, upSince: null } };
  }
  return null;
}

export function decideScaling(
  memory: ScalingMemory,
  input: ScalingInput,
  timers: ScalingTimers,
): ScalingDecision {
  const down = scaleDown(memory, input, timers);
  if (down) return down;
  const max = input.sizes[input.sizes.length - 1] ?? memory.size;
  const hold = (
    until: number | null,
    why: string | null,
    next: ScalingMemory,
    ask = max,
  ): ScalingDecision => ({
    kind: "hold",
    ask: Math.max(ask, next.size),
    until,
    why,
    memory: next,
  });
  if (input.faulty) return hold(null, "replicas are failed", { ...memory, upSince: null }, memory.size);
  const blocked = blockedUntil(memory, timers);
  if (blocked && input.now < blocked.until)
    return hold(blocked.until, blocked.why, { ...memory, upSince: null }, memory.size);
  const target = largestAllowedAtMost(input.sizes, input.admitted) ?? memory.size;
  if (target <= memory.size) return hold(null, null, { ...memory, upSince: null });
  const upSince = memory.upSince ?? input.now;
  const ready = upSince + timers.scalingTimeoutMs;
  if (input.now < ready) return hold(ready, "stabilising before a scale-up", { ...memory, upSince });
  return { kind: "scale", to: target, reason: "ScaleUp", memory: { ...memory, upSince: null } };
}

/** A scaling completed at `now`: the job runs at `to`; the failures in a row are over. */
export function scaled(memory: ScalingMemory, to: number, now: number): ScalingMemory {
  return { ...memory, size: to, lastScalingAt: now, failures: 0, lastFailureAt: null, upSince: null };
}

/** A scaling failed at `now` (the job stays at its size): one more failure in a row, backed off. */
export function scalingFailed(memory: ScalingMemory, now: number): ScalingMemory {
  return { ...memory, failures: memory.failures + 1, lastFailureAt: now, upSince: null };
}

/** The job restarted for a fault at `now`: scale-ups snooze. */
export function restarted(memory: ScalingMemory, now: number): ScalingMemory {
  return { ...memory, lastRestartAt: now, upSince: null };
}
