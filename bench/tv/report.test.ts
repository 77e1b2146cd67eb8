import { afterEach, describe, expect, it, vi } from "vitest";
import type { MadeChange } from "./changes";
import { percentile, type RunFigures, report } from "./report";
import type { Viewer } from "./viewers";

const viewer = (id: number, view: "jobs" | "cluster", seen: Array<[number, number]>): Viewer => ({
  id,
  view,
  frames: 10,
  firstFrameAt: 0,
  frame: null,
  ended: null,
  seen: new Map(seen),
  pending: [],
  subscription: { ended: new Promise(() => {}), close: () => {} },
});

const made = (
  id: number,
  kind: "quota" | "fault",
  at: number,
  detectedAt: number | null = null,
): MadeChange => ({
  change: { id, kind, views: [kind === "quota" ? "cluster" : "jobs"], reflected: () => () => false },
  at,
  detectedAt,
});

function figures(viewers: Viewer[], changes: MadeChange[], connectedAtEnd = viewers.length): RunFigures {
  return {
    ranks: 16,
    viewers,
    connectedAtEnd,
    changes,
    spanS: 10,
    console: { rssEndMb: 300, rssPeakMb: 320, cpuS: 4 },
    benchLoopDelayP99Ms: 12,
    loadAverage: 1.5,
    tab: null,
    runS: 60,
  };
}

function benchLine(log: ReturnType<typeof vi.spyOn>): Record<string, unknown> {
  const line = log.mock.calls
    .map((call: unknown[]) => String(call[0]))
    .find((text: string) => text.startsWith("BENCH tv "));
  return JSON.parse(String(line).slice("BENCH tv ".length));
}

afterEach(() => vi.restoreAllMocks());

describe("percentile", () => {
  it("is the nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("report", () => {
  it("times each change on the viewers of its view only, from the change (and a fault from its detection)", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const changes = [made(0, "quota", 1000), made(1, "fault", 5000, 5600)];
    const viewers = [
      viewer(0, "cluster", [[0, 1300]]),
      viewer(1, "cluster", [[0, 1500]]),
      viewer(2, "jobs", [[1, 6000]]),
      // A jobs viewer that never showed the fault: missed, not a delay.
      viewer(3, "jobs", []),
    ];
    const { ok } = report(figures(viewers, changes));
    const bench = benchLine(log);
    expect(ok).toBe(true);
    expect(bench).toMatchObject({
      viewers: 4,
      update_delay_p50_ms: 500,
      update_delay_p99_ms: 1000,
      quota_delay_p99_ms: 500,
      fault_delay_p99_ms: 1000,
      fault_from_detection_p99_ms: 400,
      missed_updates: 1,
      changes: 2,
      frames_per_viewer_per_s: 1,
      console_rss_mb: 300,
      console_cpu_s: 4,
      tab_heap_growth_mb: null,
      tab_minutes: 0,
    });
  });

  it("fails the run when a viewer dropped", () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { ok } = report(figures([viewer(0, "cluster", [[0, 1200]])], [made(0, "quota", 1000)], 0));
    expect(ok).toBe(false);
  });
});
