/**
 * The step of a range query, chosen from the range: about TARGET_POINTS points, at least 1 s, rounded up to
 * a step people read (1/5/15/30 s, 1/5/15/30 min, 1/3/6/12 h, 1 d), so a chart never asks for more than
 * TARGET_POINTS points and its points fall on clock-aligned times. Used by the Prometheus source and by the
 * operator's embedded history alike, so both draw the same window the same way.
 */
export const TARGET_POINTS = 250;

const NICE_STEPS_SECONDS = [
  1,
  5,
  15,
  30,
  60,
  300,
  900,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  86_400,
] as const;

/** Step in seconds for a window of `rangeMs` milliseconds (a non-positive or non-finite range gets 1 s). */
export function chooseStepSeconds(rangeMs: number, targetPoints = TARGET_POINTS): number {
  if (!Number.isFinite(rangeMs) || rangeMs <= 0) return 1;
  const raw = rangeMs / 1000 / targetPoints;
  const nice = NICE_STEPS_SECONDS.find((step) => step >= raw);
  return nice ?? Math.ceil(raw / 86_400) * 86_400;
}

/** Prometheus' duration syntax for a whole number of seconds ("15s", "5m", "1h"). */
export function promDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** A window's start snapped down to a multiple of the step, so successive polls ask for the same points. */
export function alignWindow(window: { start: number; end: number }, stepSeconds: number) {
  const stepMs = stepSeconds * 1000;
  return { start: Math.floor(window.start / stepMs) * stepMs, end: window.end };
}
