import type { ClusterEvent, ClusterNode } from "@/server/cluster/types";
import { jobTotals } from "@/server/domain/job-spec/job-totals";
import type { AgentRank } from "./agent-client";
import type { JobPhase, Recovery } from "./reconcilers/job-state";
import type { Observation, PodView } from "./reconcilers/observe";

/**
 * What the operator last saw of each job, per pod and per rank: served to the console by the live-state API.
 * Built from the observation of each reconcile, so it costs no extra polling.
 */
export type LivePod = {
  name: string;
  node: string | null;
  phase: string;
  groupRank: number;
  agentState: string | null;
  agentReason: string | null;
  agentError: string | null;
  ranks: AgentRank[];
};

export type LiveJob = {
  namespace: string;
  name: string;
  /** Epoch ms the job was created. */
  createdAt: number;
  gpus: number;
  /** `kueue.x-k8s.io/priority-class` and `kueue.x-k8s.io/queue-name` labels, when set. */
  priorityClass: string | null;
  queue: string | null;
  phase: JobPhase;
  status: string;
  recovery: Recovery | null;
  restartCount: number;
  pods: LivePod[];
  ranksTotal: number;
  ranksRunning: number;
  updatedAt: number;
};

function toLivePod(view: PodView): LivePod {
  const status = view.agent.kind === "status" ? view.agent.status : null;
  return {
    name: view.expected.name,
    node: view.pod?.node ?? null,
    phase: view.pod?.phase ?? "Missing",
    groupRank: view.expected.groupRank,
    agentState: status?.status ?? null,
    agentReason: status?.reason ?? null,
    agentError: view.agent.kind === "error" ? `${view.agent.error.cause}: ${view.agent.error.detail}` : null,
    ranks: status?.ranks ?? [],
  };
}

export function createLiveState() {
  const jobs = new Map<string, LiveJob>();
  let nodes: ClusterNode[] = [];
  return {
    update(
      key: string,
      entry: {
        obs: Observation;
        phase: JobPhase;
        status: string;
        recovery: Recovery | null;
        restartCount: number;
        ranksPerNode: number;
      },
    ) {
      const pods = entry.obs.pods.map(toLivePod);
      nodes = entry.obs.nodes;
      const { job } = entry.obs;
      const labels = job.job.metadata.labels ?? {};
      jobs.set(key, {
        namespace: job.ref.namespace,
        name: job.ref.name,
        createdAt: job.createdAt.getTime(),
        gpus: jobTotals(job.job).gpus,
        priorityClass: labels["kueue.x-k8s.io/priority-class"] ?? null,
        queue: labels["kueue.x-k8s.io/queue-name"] ?? null,
        phase: entry.phase,
        status: entry.status,
        recovery: entry.recovery,
        restartCount: entry.restartCount,
        pods,
        ranksTotal: pods.length * entry.ranksPerNode,
        ranksRunning: pods.reduce(
          (sum, pod) => sum + pod.ranks.filter((rank) => rank.state === "running").length,
          0,
        ),
        updatedAt: entry.obs.now,
      });
    },
    forget: (key: string) => jobs.delete(key),
    get: (key: string) => jobs.get(key),
    list: () => [...jobs.values()],
    nodes: () => nodes,
  };
}

export type LiveState = ReturnType<typeof createLiveState>;
export type LiveJobWithEvents = LiveJob & { events: ClusterEvent[] };
