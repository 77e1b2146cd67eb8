import { describe, expect, it } from "vitest";
import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import type { AgentRank, AgentStatus } from "@/server/operator/agent-client";
import { detectFault } from "./detect";
import type { AgentView, Observation, PodView } from "./observe";
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

function view(index: number, agent: AgentView): PodView {
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
  return { job: parsed.job } as ClusterJob;
}

const observation = (pods: PodView[]): Observation => ({
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

  it("names the pod's group ranks when the agent reports no ranks (hyperpodrun)", () => {
    expect(faultedRanks(view(1, status({ status: "faulted" })), 2)).toEqual([2, 3]);
  });
});
