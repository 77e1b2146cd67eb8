/**
 * The TV's diff: frames are small (no per-rank data, lists capped), so a change sends the whole new frame.
 * Nothing is sent when only `generatedAt` moved: an idle cluster costs the viewers nothing.
 */
export function frameChange<F extends { generatedAt: number }>(previous: F, next: F): F | null {
  return sameContent(previous, next) ? null : next;
}

function sameContent(a: { generatedAt: number }, b: { generatedAt: number }): boolean {
  return JSON.stringify({ ...a, generatedAt: 0 }) === JSON.stringify({ ...b, generatedAt: 0 });
}
