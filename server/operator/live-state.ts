import type { ClusterEvent, ClusterJob, ClusterNode } from "@/server/cluster/types";
import { workloadOf } from "@/server/domain/governance";
import { jobSize } from "@/server/domain/job-spec/job-size";
import type {
  JobPhase,
  LiveAdmission,
  LiveJob,
  LivePod,
  LiveRecovery,
} from "@/server/domain/operator-api/contract";
import { createHistory, type OperatorHistory } from "./history";
import type { Recovery } from "./reconcilers/job-state";
import type { Observation, ObservedPod } from "./reconcilers/observe";
import { podRankCount } from "./reconcilers/ranks";

/**
 * What the operator last saw of each job, per pod and per rank: served to the console by the live-state API
 * (its shape is the API contract's, server/domain/operator-api/contract.ts). Built from the observation of
 * each reconcile, so it costs no extra polling.
 */
export type { LiveJob, LivePod } from "@/server/domain/operator-api/contract";

/** The contract's view of a restart under way. */
function toLiveRecovery(recovery: Recovery | null): LiveRecovery | null {
  if (!recovery) return null;
  return {
    action: recovery.action,
    stage: recovery.stage,
    reason: recovery.reason,
    faultAt: recovery.faultAt,
    detectedAt: recovery.detectedAt,
    pods: recovery.pods,
  };
}

/**
 * A pod's live view and its running ranks: those its agent lists running (`listed`); null for an agent that
 * does not list ranks at all (hyperpodrun), whose pod's ranks all run while the agent runs them.
 */
type Converted = { live: LivePod; listed: number | null };

/** Per view: a view kept between reconciles (observe.ts) is converted once. */
const converted = new WeakMap<ObservedPod, Converted>();

function convert(view: ObservedPod): Converted {
  let entry = converted.get(view);
  if (!entry) {
    const live = convertPod(view);
    // Our agent lists ranks (an empty list while it forks them: none running yet).
    const lists = live.ranks.length > 0 || live.reportsRanks === true;
    entry = { live, listed: lists ? live.ranks.filter((rank) => rank.state === "running").length : null };
    converted.set(view, entry);
  }
  return entry;
}

/** The agent's time of entering RUNNING (Python isoformat, `+00:00`), as epoch ms. */
function runningSince(iso: string | undefined): { runningSince?: number } {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(at) ? {} : { runningSince: at };
}

function convertPod(view: ObservedPod): LivePod {
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
    reportsRanks: status ? status.ranks !== undefined : undefined,
    ...runningSince(status?.transitions?.RUNNING),
  };
}

function ranksRunning({ live, listed }: Converted, perNode: number): number {
  if (listed !== null) return listed;
  return live.agentState === "running" && live.phase === "Running" ? perNode : 0;
}

/** What all the job's pods (replicas + spares) request, as task governance counts it. */
function requestOf(job: ClusterJob): Record<string, number> | undefined {
  try {
    return { ...workloadOf(job.object, { team: "", createdAt: job.createdAt.getTime() }).request };
  } catch {
    return undefined; // a request that is not a quantity: the job fails with the field named
  }
}

/** `history`: the embedded metrics history every update feeds (history.ts); one of its own by default. */
export function createLiveState(opts: { history?: OperatorHistory } = {}) {
  const jobs = new Map<string, LiveJob>();
  const history = opts.history ?? createHistory();
  let nodes: readonly ClusterNode[] = [];
  return {
    update(
      key: string,
      entry: {
        obs: Observation;
        phase: JobPhase;
        status: string;
        reason: string | null;
        /** When the crash-loop back-off the job waits out ends (job-state.ts backOffUntil). */
        backOffUntil?: number | null;
        recovery: Recovery | null;
        restartCount: number;
        ranksPerNode: number;
        /** Under task governance (null: not governed). */
        admission?: LiveAdmission | null;
      },
    ) {
      const each = entry.obs.pods.map(convert);
      const pods = each.map((pod) => pod.live);
      nodes = entry.obs.nodes;
      const { job } = entry.obs;
      const labels = job.object.metadata.labels ?? {};
      const live: LiveJob = {
        namespace: job.ref.namespace,
        name: job.ref.name,
        uid: job.uid,
        createdAt: job.createdAt.getTime(),
        gpus: jobSize(job.object).gpus,
        priorityClass: labels["kueue.x-k8s.io/priority-class"] ?? null,
        queue: labels["kueue.x-k8s.io/queue-name"] ?? null,
        phase: entry.phase,
        status: entry.status,
        reason: entry.reason,
        backOffUntil: entry.backOffUntil ?? null,
        recovery: toLiveRecovery(entry.recovery),
        restartCount: entry.restartCount,
        pods,
        ranksTotal: entry.obs.pods.reduce((sum, view) => sum + podRankCount(view, entry.ranksPerNode), 0),
        ranksRunning: each.reduce((sum, pod) => sum + ranksRunning(pod, entry.ranksPerNode), 0),
        updatedAt: entry.obs.now,
        admission: entry.admission ?? null,
        request: requestOf(job),
      };
      jobs.set(key, live);
      // Wall-clock time, read after the reconcile: a restart that ended in it ended by now.
      history.observe(live, Date.now());
    },
    forget: (key: string) => jobs.delete(key),
    get: (key: string) => jobs.get(key),
    list: () => [...jobs.values()],
    nodes: () => nodes,
    history,
  };
}

export type LiveState = ReturnType<typeof createLiveState>;
export type LiveJobWithEvents = LiveJob & { events: ClusterEvent[] };
