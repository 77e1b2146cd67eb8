import { describe, expect, it } from "vitest";
import type { ClusterPod } from "@/server/cluster/types";
import type { Logger } from "@/server/log";
import type { AgentRank, AgentStatus } from "@/server/operator/agent-client";
import type { AwaitingResume, ResumeFacts } from "@/server/store/restart-events/store";
import type { JobContext } from "./deps";
import type { PendingRecord } from "./job-state";
import { createLedger } from "./ledger";
import type { ObservedPod } from "./observe";
import { faultProgress, restarted, trackProgress } from "./progress";

/** One pod of four ranks; each rank's step and last line's time (s) as the agent reports them. */
const S = 1000;

function rank(index: number, step: number | null, lineAt: number | null): AgentRank {
  return {
    local_rank: index,
    rank: index,
    pid: 100 + index,
    state: "running",
    exit_code: null,
    signal: null,
    last_line: null,
    last_line_at: lineAt === null ? null : new Date(lineAt * S).toISOString(),
    step,
    loss: null,
    throughput: null,
    rule_states: {},
    rule_metrics: {},
    restarts: 0,
  };
}

function pod(ranks: AgentRank[]): ObservedPod {
  return {
    expected: { name: "job-w-0", replicaSpec: "w", index: 0, groupRank: 0 },
    pod: { name: "job-w-0", node: "n0", phase: "Running", createdAt: 0 } as ClusterPod,
    agent: { kind: "status", status: { status: "running", ranks } as AgentStatus },
  };
}

type Written = { id: string; facts: ResumeFacts };

function operator(rows: { awaiting?: AwaitingResume | null; failWrites?: boolean } = {}) {
  const written: Written[] = [];
  const warnings: string[] = [];
  const log: Logger = {
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: () => undefined,
    child: () => log,
  };
  const deps = {
    ledger: createLedger(),
    log,
    restartEvents: {
      record: async () => true,
      complete: async () => true,
      resume: async (id: string, facts: ResumeFacts) => {
        if (rows.failWrites) throw new Error("database down");
        written.push({ id, facts });
        return true;
      },
      awaitingResume: async () => rows.awaiting ?? null,
    },
  };
  const ctx = (ranks: AgentRank[], now: number): JobContext =>
    ({
      deps,
      job: { uid: "uid-1", ref: { namespace: "ns", name: "job" } },
      obs: { now: now * S, pods: [pod(ranks)] },
      now: now * S,
    }) as unknown as JobContext;
  return { ctx, written, warnings };
}

function record(over: Partial<PendingRecord>): PendingRecord {
  return {
    id: "row-1",
    ranks: [2],
    pods: ["job-w-0"],
    node: "n0",
    reason: "WorkerCrash",
    faultAt: 100.5 * S,
    detectedAt: 100.6 * S,
    action: "PLR",
    message: "",
    event: { type: "Warning", message: "" },
    detection: true,
    fail: null,
    supersedes: null,
    ...over,
  };
}

/** Every rank at `step`, its line at `at` s. */
const all = (step: number | null, at: number | null) => [0, 1, 2, 3].map((i) => rank(i, step, at));

describe("restart progress at detection", () => {
  it("a crash: the job's step (the slowest rank's) at the crash", async () => {
    const { ctx } = operator();
    const ranks = [rank(0, 100, 100), rank(1, 100, 100), rank(2, 99, 99.9), rank(3, 100, 100)];
    expect(await faultProgress(ctx(ranks, 100.6), record({}))).toEqual({
      progressStep: 99,
      progressAt: 100.5 * S,
    });
  });

  it("a hang: from the stalled rank's last line, so the rule's window counts", async () => {
    const { ctx } = operator();
    const ranks = [rank(0, 70, 130), rank(1, 70, 130), rank(2, 40, 100), rank(3, 70, 130)];
    const hang = record({ reason: "LogHang_hang", ranks: [2], faultAt: 130 * S, detectedAt: 130.1 * S });
    expect(await faultProgress(ctx(ranks, 130.1), hang)).toEqual({ progressStep: 40, progressAt: 100 * S });
  });

  it("none without a step printed, and lines printed after the detection do not count", async () => {
    const { ctx } = operator();
    expect(await faultProgress(ctx(all(null, 99), 100.6), record({}))).toBeNull();
    expect(await faultProgress(ctx(all(120, 101), 100.6), record({ id: "row-2" }))).toBeNull();
  });
});

describe("restart progress after the restart", () => {
  it("a checkpoint rollback: resume step from the first lines, resumed once every rank is back", async () => {
    const { ctx, written } = operator();
    await faultProgress(ctx(all(107, 107), 107.3), record({ faultAt: 107.2 * S, detectedAt: 107.3 * S }));
    // Lines while restarting are the old run's: nothing yet.
    await trackProgress(ctx(all(107, 107.4), 107.5));
    restarted(ctx(all(null, null), 108), "row-1", 108 * S);
    await trackProgress(ctx(all(null, null), 108.1));
    expect(written).toEqual([]);
    await trackProgress(
      ctx([rank(0, 101, 109), rank(1, 101, 109), rank(2, 101, 109), rank(3, null, null)], 109.1),
    );
    expect(written).toEqual([{ id: "row-1", facts: { resumeStep: 100, resumedAt: null } }]);
    await trackProgress(
      ctx([rank(0, 107, 115), rank(1, 107, 115), rank(2, 107, 115), rank(3, 106, 114)], 115.1),
    );
    expect(written).toHaveLength(1);
    await trackProgress(
      ctx([rank(0, 108, 116), rank(1, 108, 116), rank(2, 108, 116), rank(3, 107, 115.2)], 116.1),
    );
    expect(written[1]).toEqual({ id: "row-1", facts: { resumeStep: 100, resumedAt: new Date(115.2 * S) } });
    await trackProgress(ctx(all(120, 128), 128.1));
    expect(written).toHaveLength(2);
  });

  it("a peer recovery: the same step, nothing lost", async () => {
    const { ctx, written } = operator();
    await faultProgress(ctx(all(50, 50), 50.1), record({ faultAt: 50 * S, detectedAt: 50.1 * S }));
    restarted(ctx(all(50, 50), 50.4), "row-1", 50.4 * S);
    await trackProgress(ctx(all(51, 51.4), 51.5));
    expect(written).toEqual([{ id: "row-1", facts: { resumeStep: 50, resumedAt: new Date(51.4 * S) } }]);
  });

  it("a fault before the training was back carries the first fault's last progress on", async () => {
    const { ctx } = operator();
    await faultProgress(ctx(all(100, 100), 100.6), record({}));
    restarted(ctx(all(null, null), 101), "row-1", 101 * S);
    const again = record({ id: "row-2", faultAt: 103 * S, detectedAt: 103.1 * S });
    expect(await faultProgress(ctx(all(95, 103), 103.1), again)).toEqual({
      progressStep: 100,
      progressAt: 100.5 * S,
    });
  });

  it("a restarted operator picks the waiting row up from the store", async () => {
    const awaiting = {
      id: "row-9",
      progressStep: 30,
      progressAt: new Date(30 * S),
      resumeStep: 20,
      recoveredAt: new Date(31 * S),
      outcome: "recovered",
    };
    const { ctx, written } = operator({ awaiting });
    await trackProgress(ctx(all(25, 36), 36.1));
    expect(written).toEqual([]);
    await trackProgress(ctx(all(30, 41), 41.1));
    expect(written).toEqual([{ id: "row-9", facts: { resumeStep: 20, resumedAt: new Date(41 * S) } }]);
  });

  it("a failed write is logged and does not fail the reconcile", async () => {
    const awaiting = {
      id: "row-9",
      progressStep: 30,
      progressAt: new Date(30 * S),
      resumeStep: null,
      recoveredAt: new Date(31 * S),
      outcome: "recovered",
    };
    const { ctx, warnings } = operator({ awaiting, failWrites: true });
    await expect(trackProgress(ctx(all(31, 41), 41.1))).resolves.toBeUndefined();
    expect(warnings).toEqual(["restart progress not recorded; trying again"]);
  });
});
