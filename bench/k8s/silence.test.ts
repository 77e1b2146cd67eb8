import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  followLog,
  freezeOffsets,
  parseSilenceLines,
  pickSilent,
  SILENT_MSG,
  silenceFigures,
  silentCount,
} from "./silence";

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: "warn", time: "2026-11-28T10:00:00.000Z", msg: SILENT_MSG, ...fields });

describe('the operator\'s "agent silent" lines', () => {
  it("reads namespace, pod, lastHeardAt, detectedAt and lenient, and skips every other line", () => {
    const lines = [
      line({ namespace: "ns", pod: "p-1", lastHeardAt: 1000, detectedAt: 1800, lenient: null }),
      JSON.stringify({ level: "info", msg: "reconciled", namespace: "ns", pod: "p-2" }),
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
      `${line({ namespace: "ns", pod: "p-3", detectedAt: 2000 }).slice(0, 30)}`,
      JSON.stringify({ msg: "not agent silent", namespace: "ns", pod: "p-4", detectedAt: 5 }),
      line({ namespace: "ns", pod: "p-5", detectedAt: "soon" }),
      line({ namespace: "ns", pod: "p-6", detectedAt: 2500, lenient: "overdue with many" }),
    ];
    expect(parseSilenceLines(lines)).toEqual([
      { namespace: "ns", pod: "p-1", lastHeardAt: 1000, detectedAt: 1800, lenient: null },
      {
        namespace: "ns",
        pod: "p-6",
        lastHeardAt: Number.NaN,
        detectedAt: 2500,
        lenient: "overdue with many",
      },
    ]);
  });
});

describe("silence figures", () => {
  const frozen = [
    { namespace: "ns", pod: "a", frozenAt: 10_000 },
    { namespace: "ns", pod: "b", frozenAt: 11_000 },
    { namespace: "ns", pod: "c", frozenAt: 12_000 },
  ];

  it("times each frozen pod to its first line at or after the freeze", () => {
    const figures = silenceFigures(frozen, [
      { namespace: "ns", pod: "b", lastHeardAt: 10_900, detectedAt: 11_700, lenient: "settling" },
      { namespace: "ns", pod: "a", lastHeardAt: 10_100, detectedAt: 10_600, lenient: null },
      // A later line for the same pod (its replacement judged again, say) is not a second detection.
      { namespace: "ns", pod: "a", lastHeardAt: 10_100, detectedAt: 19_000, lenient: null },
    ]);
    expect(figures.silenced).toBe(3);
    expect(figures.detected).toBe(2);
    expect(figures.detect).toEqual({ n: 2, p50: 600, p99: 700, max: 700 });
    expect(figures.lastHeard).toEqual({ n: 2, p50: -100, p99: 100, max: 100 });
    expect(figures.missed).toEqual(["ns/c"]);
    expect(figures.falseSilences).toBe(0);
    expect(figures.lenient).toEqual({ settling: 1 });
  });

  it("counts a pod judged silent that was not frozen, or before it was, as false", () => {
    const figures = silenceFigures(frozen, [
      { namespace: "ns", pod: "z", lastHeardAt: 1, detectedAt: 900, lenient: null },
      { namespace: "other", pod: "a", lastHeardAt: 1, detectedAt: 10_500, lenient: null },
      { namespace: "ns", pod: "c", lastHeardAt: 1, detectedAt: 11_999, lenient: null },
      { namespace: "ns", pod: "c", lastHeardAt: 11_990, detectedAt: 12_400, lenient: null },
    ]);
    expect(figures.falsePods).toEqual(["ns/z", "other/a", "ns/c"]);
    expect(figures.falseSilences).toBe(3);
    expect(figures.falseSilentPods).toBe(3);
    expect(figures.detected).toBe(1);
    expect(figures.detect.p50).toBe(400);
  });

  it("with nothing frozen, every line is a false silence and there is no latency", () => {
    const again = { namespace: "ns", pod: "a", lastHeardAt: 0, detectedAt: 5, lenient: null };
    const figures = silenceFigures(
      [],
      [{ namespace: "ns", pod: "a", lastHeardAt: 0, detectedAt: 1, lenient: null }, again],
    );
    expect(figures).toMatchObject({ silenced: 0, detected: 0, falseSilences: 2, falseSilentPods: 1 });
    expect(Number.isNaN(figures.detect.p99)).toBe(true);
  });
});

describe("who is frozen, and when", () => {
  it("freezes 1 % of 2,048 pods (20), at least one when asked for any, none at 0", () => {
    expect(silentCount(2048, 1)).toBe(20);
    expect(silentCount(256, 1)).toBe(3);
    expect(silentCount(10, 1)).toBe(1);
    expect(silentCount(10, 0)).toBe(0);
    expect(silentCount(10, 100)).toBe(10);
  });

  it("spreads the freezes evenly over the window, the first at once", () => {
    expect(freezeOffsets(4, 10_000)).toEqual([0, 2500, 5000, 7500]);
    expect(freezeOffsets(1, 10_000)).toEqual([0]);
    expect(freezeOffsets(0, 10_000)).toEqual([]);
  });

  it("picks distinct pods from those given", () => {
    const names = Array.from({ length: 50 }, (_, index) => `pod-${index}`);
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const picked = pickSilent(names, 10, random);
    expect(picked).toHaveLength(10);
    expect(new Set(picked).size).toBe(10);
    expect(picked.every((name) => names.includes(name))).toBe(true);
  });
});

describe("following the operator's log", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("returns each complete line once, holding a partly written one back", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "silence-test-"));
    dirs.push(dir);
    const file = path.join(dir, "operator.log");
    const follow = followLog(file);
    expect(await follow()).toEqual([]);
    await writeFile(file, "one\ntw");
    expect(await follow()).toEqual(["one"]);
    await appendFile(file, "o\nthree\n");
    expect(await follow()).toEqual(["two", "three"]);
    expect(await follow()).toEqual([]);
  });
});
