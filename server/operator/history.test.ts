import { describe, expect, it } from "vitest";
import type { LiveJob, LiveRecovery } from "@/server/domain/operator-api/contract";
import { createHistory, HISTORY_LIMITS } from "./history";

const T0 = 1_800_000_000_000;

function rank(input: { rank: number; loss: number; throughput: number; lastLineAt: number }) {
  return {
    local_rank: input.rank,
    rank: input.rank,
    pid: 100 + input.rank,
    state: "running" as const,
    exit_code: null,
    signal: null,
    last_line: "step",
    last_line_at: new Date(input.lastLineAt).toISOString(),
    step: 10,
    loss: input.loss,
    throughput: input.throughput,
    rule_states: {},
    rule_metrics: {},
    restarts: 0,
  };
}

function job(input: {
  name?: string;
  namespace?: string;
  uid?: string;
  now: number;
  recovery?: LiveRecovery | null;
  phase?: LiveJob["phase"];
  throughput?: number;
}): LiveJob {
  const throughput = input.throughput ?? 1000;
  return {
    namespace: input.namespace ?? "team-a",
    name: input.name ?? "llama",
    uid: input.uid ?? "uid-1",
    createdAt: T0,
    gpus: 2,
    priorityClass: null,
    queue: null,
    phase: input.phase ?? "Running",
    status: "Running",
    recovery: input.recovery ?? null,
    restartCount: 0,
    pods: [
      {
        name: "llama-0",
        node: "node-0",
        phase: "Running",
        groupRank: 0,
        agentState: "running",
        agentReason: null,
        agentError: null,
        ranks: [
          rank({ rank: 0, loss: 2, throughput, lastLineAt: input.now - 1000 }),
          rank({ rank: 1, loss: 4, throughput, lastLineAt: input.now - 3000 }),
        ],
      },
    ],
    ranksTotal: 2,
    ranksRunning: 2,
    updatedAt: input.now,
  };
}

const ref = { namespace: "team-a", name: "llama" };
const recovery = (faultAt: number, detectedAt: number): LiveRecovery => ({
  action: "PLR",
  stage: "starting",
  reason: "WorkerCrash",
  faultAt,
  detectedAt,
  pods: ["llama-0"],
});

describe("embedded history", () => {
  it("samples the job's mean loss, total throughput, oldest output age and ranks every 2 s", () => {
    const history = createHistory();
    // Reconciles every 100 ms for a minute: one sample per 2 s is kept.
    for (let t = T0; t < T0 + 60_000; t += 100) history.observe(job({ now: t }), t);
    const window = { start: T0, end: T0 + 60_000 };
    const throughput = history.job(ref, "throughput", window);
    expect(throughput?.stepSeconds).toBe(1);
    expect(throughput?.series[0]?.name).toBe("job total");
    expect(throughput?.series[0]?.points).toHaveLength(30);
    expect(throughput?.series[0]?.points.every((p) => p.value === 2000)).toBe(true);
    expect(history.job(ref, "loss", window)?.series[0]?.points[0]?.value).toBe(3);
    expect(history.job(ref, "heartbeat_age", window)?.series[0]?.points[0]?.value).toBe(3);
    expect(history.job(ref, "ranks", window)?.series.map((s) => [s.name, s.points[0]?.value])).toEqual([
      ["running", 2],
      ["total", 2],
    ]);
  });

  it("adds up the gauges over many pods and ranks, a 131,072-rank job included", () => {
    const history = createHistory();
    const one = job({ now: T0 });
    const [template] = one.pods;
    if (!template) throw new Error("no pod");
    // 16,384 pods × 8 ranks; the last pod's ranks printed longest ago and have the highest loss.
    const pods = Array.from({ length: 16_384 }, (_, index) => ({
      ...template,
      name: `llama-${index}`,
      ranks: Array.from({ length: 8 }, (_, local) =>
        rank({
          rank: index * 8 + local,
          loss: index === 16_383 ? 10 : 2,
          throughput: 10,
          lastLineAt: T0 - (index === 16_383 ? 7000 : 1000),
        }),
      ),
    }));
    history.observe({ ...one, pods, ranksTotal: 131_072, ranksRunning: 131_072 }, T0);
    const window = { start: T0 - 1000, end: T0 + 1000 };
    const first = (series: "throughput" | "loss" | "heartbeat_age") =>
      history.job(ref, series, window)?.series[0]?.points[0]?.value;
    expect(first("throughput")).toBe(1_310_720);
    expect(first("loss")).toBeCloseTo((2 * 131_064 + 10 * 8) / 131_072, 12);
    expect(first("heartbeat_age")).toBe(7);
  });

  it("records each recovery's detection and restart latency and counts restarts by type", () => {
    const history = createHistory();
    history.observe(job({ now: T0 }), T0);
    history.observe(
      job({ now: T0 + 1000, phase: "Recovering", recovery: recovery(T0 + 800, T0 + 900) }),
      T0 + 1000,
    );
    history.observe(
      job({ now: T0 + 1500, phase: "Recovering", recovery: recovery(T0 + 800, T0 + 900) }),
      T0 + 1500,
    );
    history.observe(job({ now: T0 + 2400 }), T0 + 2400);
    const window = { start: T0 - 60_000, end: T0 + 60_000 };
    expect(history.job(ref, "detection_latency", window)?.series[0]?.points.map((p) => p.value)).toEqual([
      0.1,
    ]);
    const restart = history.job(ref, "restart_latency", window)?.series[0]?.points;
    expect(restart?.map((p) => p.value)).toEqual([1.5]);
    const restarts = history.job(ref, "restarts", window)?.series;
    expect(restarts?.map((s) => s.name)).toEqual(["PLR"]);
    expect(restarts?.[0]?.points.map((p) => p.value)).toEqual([0, 1, 1]);
  });

  it("counts no restart when a recovery ends with the job failed", () => {
    const history = createHistory();
    history.observe(job({ now: T0, phase: "Recovering", recovery: recovery(T0 - 200, T0 - 100) }), T0);
    history.observe(job({ now: T0 + 1000, phase: "Failed" }), T0 + 1000);
    const window = { start: T0 - 60_000, end: T0 + 60_000 };
    expect(history.job(ref, "restarts", window)?.series).toEqual([]);
    expect(history.job(ref, "detection_latency", window)?.series[0]?.points).toHaveLength(1);
  });

  it("starts a new run of the name clean, keeps at most 64 jobs, and knows nothing of others", () => {
    const history = createHistory();
    history.observe(job({ now: T0, uid: "run-1", throughput: 5 }), T0);
    history.observe(job({ now: T0 + 5000, uid: "run-2", throughput: 7 }), T0 + 5000);
    const window = { start: T0 - 60_000, end: T0 + 60_000 };
    expect(history.job(ref, "throughput", window)?.series[0]?.points.map((p) => p.value)).toEqual([14]);
    for (let i = 0; i < 100; i++) history.observe(job({ name: `job-${i}`, now: T0 }), T0);
    expect(history.size()).toBe(HISTORY_LIMITS.jobs);
    expect(history.job(ref, "throughput", window)).toBeNull();
    expect(history.job({ namespace: "team-a", name: "job-99" }, "throughput", window)).not.toBeNull();
  });

  it("sums throughput over the jobs of the namespaces asked for", () => {
    const history = createHistory();
    // Three jobs sampled within one 15 s step of an hour's window.
    history.observe(job({ name: "a", now: T0 + 100, throughput: 100 }), T0 + 100);
    history.observe(job({ name: "b", now: T0 + 400, throughput: 10 }), T0 + 400);
    history.observe(job({ name: "c", namespace: "team-b", now: T0 + 700, throughput: 1 }), T0 + 700);
    const window = { start: T0 - 3_540_000, end: T0 + 60_000 };
    const total = (namespaces: ReadonlySet<string> | "all") =>
      history.cluster("throughput", window, namespaces).series[0]?.points.map((p) => p.value);
    expect(total("all")).toEqual([222]);
    expect(total(new Set(["team-a"]))).toEqual([220]);
    expect(total(new Set())).toEqual([]);
  });

  it("averages a day of samples down to about 250 points", () => {
    const history = createHistory();
    for (let t = T0; t < T0 + 24 * 3600_000; t += 2000) history.observe(job({ now: t }), t);
    const points = history.job(ref, "throughput", { start: T0, end: T0 + 24 * 3600_000 })?.series[0]?.points;
    expect(points?.length).toBeGreaterThan(90);
    expect(points?.length).toBeLessThanOrEqual(97);
  });
});
