import { describe, expect, it } from "vitest";
import {
  createProgressTrack,
  PROGRESS_WINDOW,
  type ProgressTrack,
  recordProgress,
  usualProgressIntervalMs,
} from "./progress-track";

const T0 = Date.parse("2025-01-01T00:00:00Z");

/** Progress lines read at T0 + each offset (ms). */
function track(offsets: readonly number[]): ProgressTrack {
  const result = createProgressTrack();
  for (const offset of offsets) recordProgress(result, T0 + offset);
  return result;
}

/** Offsets of lines `gaps` apart, starting at 0. */
function spaced(gaps: readonly number[]): number[] {
  const offsets = [0];
  for (const gap of gaps) offsets.push((offsets.at(-1) ?? 0) + gap);
  return offsets;
}

describe("progress track", () => {
  it("knows nothing before the first progress line", () => {
    const empty = track([]);
    expect(empty.lastAt).toBeNull();
    expect(usualProgressIntervalMs(empty)).toBeNull();
  });

  it("dates the last progress line, and has no usual interval from the first gap alone", () => {
    const two = track([0, 9000]);
    expect(two.lastAt).toBe(T0 + 9000);
    expect(usualProgressIntervalMs(two)).toBeNull();
  });

  it("leaves the first gap after the start out (warm-up): 9 s then 200 ms steps is 200 ms", () => {
    expect(usualProgressIntervalMs(track(spaced([9000, 200])))).toBe(200);
    expect(usualProgressIntervalMs(track(spaced([9000, 200, 200, 200])))).toBe(200);
  });

  it("is the median under jitter: one slow step (a checkpoint) moves it little", () => {
    const jittery = [180, 230, 190, 210, 205, 195, 220, 185, 215, 200, 30_000, 190, 210, 200, 195, 205];
    const usual = usualProgressIntervalMs(track(spaced([1000, ...jittery])));
    expect(usual).toBeGreaterThanOrEqual(195);
    expect(usual).toBeLessThanOrEqual(210);
  });

  it("takes the mean of the two middle gaps when their count is even", () => {
    expect(usualProgressIntervalMs(track(spaced([1000, 100, 300])))).toBe(200);
    expect(usualProgressIntervalMs(track(spaced([1000, 100, 301])))).toBe(201);
  });

  it("keeps the last window of gaps: a change of pace is followed", () => {
    const slow = Array.from({ length: PROGRESS_WINDOW }, () => 1000);
    const fast = Array.from({ length: PROGRESS_WINDOW / 2 + 1 }, () => 100);
    const changed = track(spaced([5000, ...slow, ...fast]));
    expect(changed.gaps).toHaveLength(PROGRESS_WINDOW);
    expect(usualProgressIntervalMs(changed)).toBe(100);
  });

  it("counts lines read in one chunk as one arrival: bursts of buffered output 30 s apart are 30 s", () => {
    const burst = (at: number) => [at, at + 1, at + 1, at + 2, at + 3];
    const bursty = track([0, ...burst(30_000), ...burst(60_000), ...burst(90_000), ...burst(120_000)]);
    expect(usualProgressIntervalMs(bursty)).toBe(29_997);
    expect(bursty.lastAt).toBe(T0 + 120_003);
  });
});
