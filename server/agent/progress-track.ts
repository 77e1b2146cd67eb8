/**
 * When a rank last printed training progress (a line `isProgressLine` accepts: server/domain/log-rules/
 * progress.ts) and how often it usually does. Reported in the rank's `/status` entry (`last_progress_at`,
 * `progress_interval_ms`) for the console's "no progress for N s" (server/domain/console/progress-stall.ts):
 * our own display. Faults, and their timing, stay the log rules'.
 *
 * The usual interval is the median of the last PROGRESS_WINDOW gaps between progress arrivals: one slow step
 * (a checkpoint save, an evaluation) or a jittery one moves it little, and after a real change of pace (a
 * new phase) it follows within half a window. Two gaps are not counted:
 * - the first one after the process starts: the first step carries the warm-up (graph compilation, the
 *   data loader's first batches), often many times a usual step;
 * - gaps of SAME_READ_MS or less: lines read in one chunk. A trainer whose stdout is block-buffered (Python
 *   `print` into a pipe) delivers its steps in bursts; the gap that tells when to expect the next line is
 *   the one between bursts, not the zeros inside one.
 * A trainer that prints progress faster than every SAME_READ_MS never gets a usual interval (and so never
 * shows "no progress"); no trainer prints progress lines at that rate.
 */

export const PROGRESS_WINDOW = 16;
export const SAME_READ_MS = 5;

export type ProgressTrack = {
  /** Epoch ms of the last progress line; null before the first. */
  lastAt: number | null;
  /** Gaps seen since the process started (the first is not kept). */
  gapsSeen: number;
  /** The last PROGRESS_WINDOW kept gaps, oldest first, ms. */
  gaps: number[];
};

export function createProgressTrack(): ProgressTrack {
  return { lastAt: null, gapsSeen: 0, gaps: [] };
}

/** Records a progress line read at `at` (epoch ms). */
export function recordProgress(track: ProgressTrack, at: number): void {
  const previous = track.lastAt;
  track.lastAt = at;
  if (previous === null) return;
  const gap = at - previous;
  if (gap <= SAME_READ_MS) return;
  track.gapsSeen += 1;
  if (track.gapsSeen === 1) return;
  track.gaps.push(gap);
  if (track.gaps.length > PROGRESS_WINDOW) track.gaps.shift();
}

/** The usual gap between progress lines, whole ms (median of the kept gaps); null before one is kept. */
export function usualProgressIntervalMs(track: ProgressTrack): number | null {
  const sorted = [...track.gaps].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const upper = sorted[middle];
  if (upper === undefined) return null;
  const lower = sorted.length % 2 === 0 ? (sorted[middle - 1] ?? upper) : upper;
  return Math.round((lower + upper) / 2);
}
