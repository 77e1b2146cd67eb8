/** Points a TV chart carries per series: enough for a wall screen, small enough for a frame every second. */
export const MAX_TV_POINTS = 120;

/**
 * At most `max` points, evenly spaced by index, always keeping the newest; non-finite points dropped (a gap,
 * never a sentinel drawn as 0).
 */
export function thinPoints<P extends { t: number; value: number }>(
  points: readonly P[],
  max = MAX_TV_POINTS,
): P[] {
  const finite = points.filter((point) => Number.isFinite(point.t) && Number.isFinite(point.value));
  if (finite.length <= max) return finite;
  const stride = Math.ceil(finite.length / max);
  const last = finite.length - 1;
  return finite.filter((_, index) => (last - index) % stride === 0);
}
