import { describe, expect, it } from "vitest";
import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import type { AgentRank, AgentStatus } from "@/server/operator/agent-client";
import { detectFault } from "./detect";
import type { AgentView, Observation, ObservedPod } from "./observe";
import { faultedRanks, podRankCount, ranksPerNode } from "./ranks";

const NOW = 1_000_000;

function rank(local: number, group: number, over: Partial<AgentRank> = {}): AgentRank {
  return {
    local_rank: local,
    rank: group * 2 + local,
    pid: 100 + local,
    state: "running",
    exit_code: null,
    signal: null,
    last_line: null,
    last_line_at: null,
    step: null,
    loss: null,
    throughput: null,
    rule_states: {},
    rule_metrics: {},
    restarts: 0,
    ...over,
  };
}

const status = (value: Partial<AgentStatus>): AgentView => ({
  kind: "status",
  status: { status: "running", ...value } as AgentStatus,
});

function view(index: number, agent: AgentView): ObservedPod {
  const pod = { name: `job-w-${index}`, node: `n${index}`, phase: "Running", createdAt: 0 } as ClusterPod;
  return { expected: { name: `job-w-${index}`, replicaSpec: "w", index, groupRank: index }, pod, agent };
}

function job(nproc: string | null, command: string): ClusterJob {
  const parsed = parseJobYaml(`apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata: { name: job }
spec:
${nproc === null ? "" : `  nprocPerNode: "${nproc}"\n`}  replicaSpecs:
    - name: w
      replicas: 2
      template: { spec: { containers: [{ name: main, command: ${command} }] } }
`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { object: parsed.job } as ClusterJob;
}

const observation = (pods: ObservedPod[]): Observation => ({
  now: NOW,
  job: {} as ClusterJob,
  pods,
  strays: [],
  nodes: [],
});

describe("ranksPerNode (operator)", () => {
  const plain = "[hyperpodrun, t.py]";
  it("reads the command's --nproc-per-node when nprocPerNode is absent (stored as auto)", () => {
    expect(ranksPerNode(job(null, "[hyperpodrun, --nproc-per-node, '2', t.py]"))).toBe(2);
  });

  it('reads nprocPerNode "2", and counts 1 for auto on CPUs until an agent answers', () => {
    expect(ranksPerNode(job("2", plain))).toBe(2);
    expect(ranksPerNode(job("auto", plain))).toBe(1);
    expect(ranksPerNode(job(null, plain))).toBe(1);
  });

  it("is corrected by what the agents report", () => {
    const obs = observation([
      view(0, status({ ranks: [0, 1, 2].map((l) => rank(l, 0)) })),
      view(1, status({})),
    ]);
    expect(ranksPerNode(job("auto", plain), obs)).toBe(3);
    expect(ranksPerNode(job("8", plain), obs)).toBe(3);
    expect(ranksPerNode(job("2", plain), observation([view(0, status({}))]))).toBe(2);
  });

  it("counts a pod's ranks as reported, else from the ranks per node", () => {
    expect(podRankCount(view(0, status({ ranks: [rank(0, 0)] })), 4)).toBe(1);
    expect(podRankCount(view(0, status({})), 4)).toBe(4);
    expect(podRankCount(view(0, { kind: "none" }), 2)).toBe(2);
  });
});

describe("a crash record names the rank that crashed", () => {
  it("names only the crashed rank of a two-rank pod", () => {
    const crashed = status({
      status: "faulted",
      reason: "WorkerCrash",
      ranks: [rank(0, 1, { state: "stopped" }), rank(1, 1, { state: "crashed", exit_code: 3 })],
    });
    const fault = detectFault(observation([view(0, status({})), view(1, crashed)]), {
      agentTimeoutMs: 3000,
      ranksPerNode: 2,
      podStartGraceMs: 0,
    });
    expect(fault).toMatchObject({ kind: "WorkerCrash", pods: ["job-w-1"], ranks: [3] });
  });

  it("names a rank that exited non-zero or trips a watched log rule", () => {
    const exited = view(0, status({ ranks: [rank(0, 0, { state: "exited", exit_code: 1 }), rank(1, 0)] }));
    expect(faultedRanks(exited, 2)).toEqual([0]);
    const hung = view(1, status({ ranks: [rank(0, 1, { rule_states: { Step: "HANGING" } }), rank(1, 1)] }));
    expect(faultedRanks(hung, 2)).toEqual([2]);
    const unwatched = view(
      1,
      status({ ranks: [rank(0, 1), rank(1, 1, { rule_states: { S: "FAULTED" }, log_watched: false })] }),
    );
    expect(faultedRanks(unwatched, 2)).toEqual([2, 3]);
  });

  it("keeps the pod's ranks when our agent lists ranks but none faulted", () => {
    expect(faultedRanks(view(1, status({ status: "faulted", ranks: [] })), 2)).toEqual([2, 3]);
  });
});

describe("a hyperpodrun fault names the ranks its message names, else none", () => {
  const crash = (locals: number[]) =>
    `A training worker process has crashed:\n${locals.map((local) => `    Local Rank ${local} exited with code -9 due to: Signal 9 (SIGKILL) received by PID ${100 + local}\n`).join("")}`;
  const faulted = (value: Partial<AgentStatus>) => status({ status: "faulted", ...value });

  it("maps the crashed local rank through the pod's assigned group rank", () => {
    const crashed = faulted({ reason: "WorkerCrash", message: crash([1]), assigned_rank: "1" });
    expect(faultedRanks(view(1, crashed), 2)).toEqual([3]);
    expect(
      faultedRanks(view(0, faulted({ reason: "WorkerCrash", message: crash([1]), assigned_rank: "0" })), 2),
    ).toEqual([1]);
  });

  it("maps several local ranks; the operator's group rank when the agent reports none assigned", () => {
    expect(faultedRanks(view(2, faulted({ reason: "WorkerCrash", message: crash([0, 3]) })), 4)).toEqual([
      8, 11,
    ]);
  });

  it("uses the rank the agent runs under when it differs from the operator's current one", () => {
    const crashed = faulted({ reason: "WorkerCrash", message: crash([0]), assigned_rank: "3" });
    expect(faultedRanks(view(1, crashed), 2)).toEqual([6]);
  });

  it("names the global ranks of an in-process WorkerReportedFault as they are", () => {
    const message = "The processes reported a failure on ranks 5";
    expect(faultedRanks(view(2, faulted({ reason: "WorkerReportedFault", message })), 2)).toEqual([5]);
  });

  it("names none (the pod) for a log rule, an unknown fault, no message, or a rank past the ranks per node", () => {
    const rule = faulted({ reason: "LogHang_Steps", message: "The job is hanging", assigned_rank: "1" });
    expect(faultedRanks(view(1, rule), 2)).toEqual([]);
    expect(faultedRanks(view(1, faulted({ reason: "WorkerFault" })), 2)).toEqual([]);
    expect(faultedRanks(view(1, faulted({ reason: "WorkerCrash" })), 2)).toEqual([]);
    expect(faultedRanks(view(1, faulted({ reason: "WorkerCrash", message: crash([2]) })), 2)).toEqual([]);
  });

  it("is what the fault and its record carry; the pod stays its scope", () => {
    const crashed = faulted({ reason: "WorkerCrash", message: crash([1]), assigned_rank: "1" });
    const options = { agentTimeoutMs: 3000, ranksPerNode: 2, podStartGraceMs: 0 };
    expect(detectFault(observation([view(0, status({})), view(1, crashed)]), options)).toMatchObject({
      kind: "WorkerCrash",
      pods: ["job-w-1"],
      ranks: [3],
    });
    const hung = faulted({ reason: "LogHang_Steps", message: "The job is hanging" });
    expect(detectFault(observation([view(0, hung)]), options)).toMatchObject({
      pods: ["job-w-0"],
      ranks: [],
    });
  });
});
