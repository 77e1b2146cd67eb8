/**
 * "No progress for N s": a running rank that has printed training progress before and has printed none for
 * well past its usual interval (the agent's `last_progress_at` and `progress_interval_ms`, see
 * server/agent/progress-track.ts). Rebound's own display, shown before any log rule fires; whether the job
 * faults, and when, stays the log rules' (HyperPod's).
 *
 * The threshold is max(STALL_FACTOR × usual interval, STALL_FLOOR_MS): three intervals, so a single slow
 * step or a jittery one never shows, and never under 5 s, so a fast trainer's scheduling hiccups (a
 * garbage collection, a busy machine) do not flash it. A rank with no usual interval yet (fewer than three
 * progress lines since it started) or none at all (a trainer whose lines are not progress) shows nothing.
 */

export const STALL_FACTOR = 3;
export const STALL_FLOOR_MS = 5_000;

/** The progress facts of one rank, epoch ms (as the console's RankView carries them). */
export type ProgressFacts = {
  /** The agent's run state of the rank: only a running rank stalls. */
  state: string;
  lastProgressAt?: number | null;
  progressIntervalMs?: number | null;
};

/** How long without progress before it shows, for a rank whose usual interval is `usualMs`. */
export function stallThresholdMs(usualMs: number): number {
  return Math.max(STALL_FACTOR * usualMs, STALL_FLOOR_MS);
}

/** The rank's progress age (ms since its last progress line) once past its threshold; null otherwise. */
export function stalledForMs(rank: ProgressFacts, now: number): number | null {
  const { lastProgressAt, progressIntervalMs } = rank;
  if (rank.state !== "running" || lastProgressAt == null || progressIntervalMs == null) return null;
  const age = now - lastProgressAt;
  return Number.isFinite(age) && age > stallThresholdMs(progressIntervalMs) ? age : null;
}

/** ISO text from the agent (`last_progress_at`) as epoch ms; null when absent or unreadable. */
export function progressAtMs(iso: string | null | undefined): number | null {
  if (iso == null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
