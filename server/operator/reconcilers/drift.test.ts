import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import type { AgentRank, AgentStatus } from "@/server/operator/agent-client";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { testView as view } from "@/server/operator/testing/pod-views";
import {
  createReconcileHarness,
  type ReconcileHarness,
  reconcileUntil,
} from "@/server/operator/testing/reconcile-harness";
import { detectDrift, detectFault, mayHoldFault } from "./detect";
import type { AgentView, Observation, ObservedPod } from "./observe";

/**
 * An agent of a Running job that reports a state or ranks the operator did not ask for (someone else sent
 * it /stop) is an AgentStateDrift fault; what the operator itself stops, and a crash, are not.
 */
const NOW = 1_000_000;
const options = { agentTimeoutMs: 3000, ranksPerNode: 2, podStartGraceMs: 30_000 };
const iso = (ms: number) => new Date(ms).toISOString();

const rank = (global: number, state: AgentRank["state"], exit: number | null = null): AgentRank => ({
  local_rank: global % 2,
  rank: global,
  pid: null,
  state,
  exit_code: exit,
  signal: null,
  last_line: null,
  last_line_at: null,
  step: null,
  loss: null,
  throughput: null,
  rule_states: {},
  rule_metrics: {},
  restarts: 0,
});

const agent = (value: Partial<AgentStatus>): AgentView => ({
  kind: "status",
  status: { status: "running", ...value } as AgentStatus,
});

const observation = (pods: ObservedPod[]): Observation => ({
  now: NOW,
  job: {} as ClusterJob,
  pods,
  strays: [],
  nodes: [],
});

const RUNNING = agent({ ranks: [rank(0, "running"), rank(1, "running")] });
const drifted = (other: AgentView) => detectDrift(observation([view(0, RUNNING), view(1, other)]), options);

describe("detectDrift", () => {
  it("flags an agent stopped by someone else: READY, its stopped ranks, when it began stopping", () => {
    const stopped = agent({
      status: "ready",
      transitions: { RUNNING: iso(NOW - 900), STOPPING: iso(NOW - 300), READY: iso(NOW - 200) },
      ranks: [rank(2, "stopped"), rank(3, "stopped")],
    });
    const drift = drifted(stopped);
    expect(drift?.fault).toEqual({
      kind: "WorkerCrash",
      reason: "AgentStateDrift",
      at: NOW - 300,
      node: "n1",
      pods: ["job-w-1"],
      ranks: [2, 3],
    });
    expect(drift?.message).toContain("job-w-1 reports READY");
    expect(drift?.message).toContain("ranks 2, 3 stopped outside the operator");
  });

  it("leaves alone a READY line older than the agent's start: it never ran, or ran after it was ready", () => {
    // A pushed line still on its way when the operator's /start was answered (a job's first start).
    const neverRan = agent({ status: "ready", transitions: { INIT: iso(NOW - 900), READY: iso(NOW - 800) } });
    expect(drifted(neverRan)).toBeNull();
    const readyBeforeRun = agent({
      status: "ready",
      transitions: { READY: iso(NOW - 800), RUNNING: iso(NOW - 100) },
    });
    expect(drifted(readyBeforeRun)).toBeNull();
    // Ran since it was ready, then began stopping: a drift (the first case above).
    const stoppingAfterRun = agent({
      status: "stopping",
      transitions: { READY: iso(NOW - 900), RUNNING: iso(NOW - 800), STOPPING: iso(NOW - 300) },
    });
    expect(drifted(stoppingAfterRun)?.fault.reason).toBe("AgentStateDrift");
  });

  it("flags STOPPING, and READY of an agent without ranks (the unchanged agent) with the pod's ranks", () => {
    // Still stopping: a rank not seen ending yet is stopped all the same; one that finished is not.
    const stopping = agent({ status: "stopping", ranks: [rank(2, "stopped"), rank(3, "running")] });
    expect(drifted(stopping)?.fault.ranks).toEqual([2, 3]);
    const finished = agent({ status: "ready", ranks: [rank(2, "stopped"), rank(3, "exited", 0)] });
    expect(drifted(finished)?.fault.ranks).toEqual([2]);
    expect(drifted(agent({ status: "stopping" }))?.fault).toMatchObject({
      reason: "AgentStateDrift",
      at: NOW,
      ranks: [2, 3],
    });
    expect(drifted(agent({ status: "ready" }))?.fault.ranks).toEqual([2, 3]);
  });

  it("flags a process-level agent still RUNNING with a rank stopped, but not an in-process one", () => {
    const ranks = [rank(2, "running"), rank(3, "stopped")];
    expect(drifted(agent({ ranks }))?.fault).toMatchObject({ reason: "AgentStateDrift", ranks: [3] });
    expect(drifted(agent({ ranks, restartMode: "in_process_restart" }))).toBeNull();
  });

  it("flags a RUNNING agent that lists fewer ranks than it started with: a gap, or fewer than its peers", () => {
    const gap = agent({ ranks: [rank(2, "running")].map((each) => ({ ...each, local_rank: 1, rank: 3 })) });
    // Local rank 0 left the list of an agent whose ranks per node are 2 (its peer's count).
    expect(drifted(gap)).toMatchObject({
      fault: { kind: "WorkerCrash", reason: "AgentStateDrift", pods: ["job-w-1"], ranks: [2] },
      message: expect.stringContaining("RUNNING with 1 of 2 ranks"),
    });
    // One rank, local rank 0, while its peer runs 2: rank 3 is missing, found without the index too.
    const fewer = agent({ ranks: [rank(2, "running")] });
    const pods = [view(0, RUNNING), view(1, fewer)];
    const index = { pods, suspects: new Set<number>(), onNode: new Map() };
    expect(detectDrift({ ...observation(pods), index }, options)?.fault.ranks).toEqual([3]);
    expect(mayHoldFault(view(1, gap))).toBe(true);
  });

  it("reads no missing ranks before the workers are forked, nor from an in-process or unchanged agent", () => {
    expect(drifted(agent({ ranks: [] }))).toBeNull();
    expect(drifted(agent({}))).toBeNull();
    const inProcess = agent({ ranks: [rank(2, "running")], restartMode: "in_process_restart" });
    expect(drifted(inProcess)).toBeNull();
  });

  it("keeps WorkerCrash for a rank that failed on its own before the agent was stopped", () => {
    const crashed = agent({ status: "ready", ranks: [rank(2, "stopped"), rank(3, "crashed", 1)] });
    expect(drifted(crashed)?.fault).toMatchObject({ kind: "WorkerCrash", reason: "WorkerCrash", ranks: [3] });
  });

  it("keeps the agent's own fault when it faulted in this run before it was stopped (no ranks listed)", () => {
    const stoppedAfterFault = agent({
      status: "ready",
      reason: "LogHang_JobHang",
      transitions: { RUNNING: iso(NOW - 900), FAULTED: iso(NOW - 500), STOPPING: iso(NOW - 300) },
    });
    expect(drifted(stoppedAfterFault)?.fault).toMatchObject({
      kind: "LogHang",
      reason: "LogHang_JobHang",
      at: NOW - 500,
      ranks: [2, 3],
    });
    // A fault of an earlier run (FAULTED before the latest RUNNING) was already recovered: this is a drift.
    const earlier = agent({
      status: "ready",
      reason: "WorkerCrash",
      transitions: { FAULTED: iso(NOW - 900), RUNNING: iso(NOW - 500), STOPPING: iso(NOW - 300) },
    });
    expect(drifted(earlier)?.fault).toMatchObject({ reason: "AgentStateDrift", at: NOW - 300 });
  });

  it("sees no drift in what the operator expects or handles as another fault", () => {
    const finished = agent({ ranks: [rank(2, "exited", 0), rank(3, "running")] });
    for (const other of [RUNNING, finished, agent({ status: "completed" }), agent({ status: "init" })])
      expect(drifted(other)).toBeNull();
    // A faulted agent is the agent's own fault (detectFault), never a drift.
    const faulted = agent({ status: "faulted", reason: "WorkerCrash" });
    expect(drifted(faulted)).toBeNull();
    expect(detectFault(observation([view(0, RUNNING), view(1, faulted)]), options)?.reason).toBe(
      "WorkerCrash",
    );
    // A READY agent whose pod is not running (yet) is not read as drifted.
    expect(
      detectDrift(observation([view(1, agent({ status: "ready" }), { phase: "Pending" })]), options),
    ).toBeNull();
  });

  it("keeps a drifted view among those detection reads (the detection index)", () => {
    expect(mayHoldFault(view(1, agent({ status: "ready" })))).toBe(true);
    expect(mayHoldFault(view(1, RUNNING))).toBe(false);
    const pods = [view(0, RUNNING), view(1, agent({ status: "ready" }))];
    const index = { pods, suspects: new Set([1]), onNode: new Map() };
    expect(detectDrift({ ...observation(pods), index }, options)?.fault.pods).toEqual(["job-w-1"]);
    expect(
      detectDrift({ ...observation(pods), index: { ...index, suspects: new Set() } }, options),
    ).toBeNull();
  });
});

const POD0 = "drift-workers-0";
const POD1 = "drift-workers-1";

const running = (h: ReconcileHarness) =>
  h.state().phase === "Running" &&
  h.state().recovery === null &&
  [POD0, POD1].every((pod) => h.agents.state(h.agentUrl(pod)) === "running");

describe("a Running job whose agent is stopped by someone else", () => {
  it("records an AgentStateDrift naming the pod and restarts the job in place", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({ name: "drift", nodes: 2, ranks: 2, gpusPerPod: 2 }),
      nodes: 2,
      gpusPerNode: 2,
    });
    expect(await reconcileUntil(h, () => running(h))).toBe(true);
    const url = h.agentUrl(POD1);
    // A foreign /stop, not the operator's: the agent goes back to READY.
    await h.agents.stop(url, {});
    await h.reconcile();
    expect(h.state().phase).toBe("Recovering");
    expect(await reconcileUntil(h, () => running(h))).toBe(true);
    expect(h.agentUrl(POD1)).toBe(url);
    const rows = h.store.rows();
    expect(rows.map((row) => [row.reason, row.action, row.pods, row.ranks, row.outcome])).toEqual([
      ["AgentStateDrift", "PLR", [POD1], [2, 3], "recovered"],
    ]);
    expect(h.cluster.events.some((event) => event.message.includes(`${POD1} reports READY`))).toBe(true);
    // The operator's own stops and starts of that restart were not drifts: one row, and quiet afterwards.
    for (let round = 0; round < 3; round += 1) await h.reconcile();
    expect(h.store.rows()).toHaveLength(1);
    expect(h.state().phase).toBe("Running");
  });
});
