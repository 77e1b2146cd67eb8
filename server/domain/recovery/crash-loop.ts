// Restarts without progress in between: CrashLoopBackOff's delays and the bound after which the job fails.

/**
 * HyperPod defines no backoff and no default bound (jobMaxRetryCount unset restarts forever). Ours, an
 * explicit choice (issue 17): Kubernetes' CrashLoopBackOff. The first restart after progress is immediate
 * (a healthy job's in-place restart stays fast); each further restart without progress waits 10 s, doubling
 * to 5 min. The job fails once it would restart more than `maxRestartsWithoutProgress` times in a row
 * without progress (default 5: the sixth failure fails it, about 2.5 min after the first with the default
 * delays 0, 10, 20, 40, 80 s).
 */
export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;
export const DEFAULT_MAX_RESTARTS_WITHOUT_PROGRESS = 5;
/** Running this long with no fault counts as progress (for agents that report no steps). */
export const SUSTAINED_RUNNING_MS = 60_000;

/** What is kept between faults (in the job's status): restarts in a row without progress. */
export type CrashLoopState = { restartsWithoutProgress: number };

export type CrashLoopDecision =
  | { action: "restart"; delayMs: number; state: CrashLoopState }
  | { action: "fail"; reason: string; state: CrashLoopState };

/** The delay before the n-th restart in a row without progress (n >= 1). */
export function backoffDelayMs(restartsInARow: number): number {
  if (restartsInARow <= 1) return 0;
  return Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** (restartsInARow - 2));
}

/**
 * A failure happened. `progressed`: the job made progress since the previous restart (a step printed, or
 * running SUSTAINED_RUNNING_MS). `limit`: restarts in a row allowed without progress; 0 or less turns the
 * crash-loop handling off (HyperPod's behaviour: every restart at once, no bound but jobMaxRetryCount).
 */
export function onFailure(input: {
  state: CrashLoopState;
  progressed: boolean;
  limit: number;
  cause: string;
}): CrashLoopDecision {
  const before = input.progressed ? 0 : input.state.restartsWithoutProgress;
  // Off: no back-off and no bound, but the count goes on, so the repeats still fold into one restart
  // record (server/store/restart-events/mutations.ts recordRepeat) as they do under any other limit.
  if (input.limit <= 0)
    return { action: "restart", delayMs: 0, state: { restartsWithoutProgress: before + 1 } };
  if (before >= input.limit) {
    return {
      action: "fail",
      reason: `${before} restarts in a row without progress (limit ${input.limit}); last failure: ${input.cause}`,
      state: { restartsWithoutProgress: before },
    };
  }
  const next = before + 1;
  return { action: "restart", delayMs: backoffDelayMs(next), state: { restartsWithoutProgress: next } };
}

/**
 * The limit for a job: the annotation `rebound.dev/max-restarts-without-progress` (an integer; 0 = no
 * back-off and no bound, HyperPod's own behaviour), else the default. A value that is not a non-negative integer is an error.
 */
export const MAX_RESTARTS_ANNOTATION = "rebound.dev/max-restarts-without-progress";

export function restartsWithoutProgressLimit(
  annotations: Record<string, string> | undefined,
): { ok: true; limit: number } | { ok: false; reason: string } {
  const raw = annotations?.[MAX_RESTARTS_ANNOTATION];
  if (raw === undefined) return { ok: true, limit: DEFAULT_MAX_RESTARTS_WITHOUT_PROGRESS };
  if (!/^\d+$/.test(raw.trim())) {
    return {
      ok: false,
      reason: `metadata.annotations["${MAX_RESTARTS_ANNOTATION}"]: expected a non-negative integer, got ${JSON.stringify(raw)}`,
    };
  }
  return { ok: true, limit: Number.parseInt(raw, 10) };
}

/**
 * Progress since the last (re)start: a rank printed a step while the job was running, or the job has been
 * running (every agent RUNNING, no fault) for SUSTAINED_RUNNING_MS by `now`.
 */
export function madeProgress(input: {
  runningSince: number | null;
  now: number;
  stepPrinted: boolean;
}): boolean {
  if (input.stepPrinted) return true;
  return input.runningSince !== null && input.now - input.runningSince >= SUSTAINED_RUNNING_MS;
}
