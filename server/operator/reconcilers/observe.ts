import type { ClusterBackend, ClusterJob, ClusterNode, ClusterPod } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { AgentCallError, AgentClient, AgentStatus } from "@/server/operator/agent-client";
import type { OperatorMetrics } from "@/server/operator/metrics";
import type { Presence, PushedView } from "@/server/operator/presence/presence";

/** The pods a job should have: every replica of every replica spec, in order; their order is the node rank. */
export type ExpectedPod = { name: string; replicaSpec: string; index: number; groupRank: number };

export function expectedPods(job: ClusterJob): ExpectedPod[] {
  const pods: ExpectedPod[] = [];
  for (const spec of job.job.spec.replicaSpecs) {
    for (let index = 0; index < spec.replicas; index += 1) {
      pods.push({
        name: `${job.ref.name}-${spec.name}-${index}`,
        replicaSpec: spec.name,
        index,
        groupRank: pods.length,
      });
    }
  }
  return pods;
}

type Expected = { key: string; pods: readonly ExpectedPod[]; names: ReadonlySet<string> };
/** Jobs whose expected pods are kept between reconciles; past that the oldest is rebuilt when next needed. */
const EXPECTED_CACHE_JOBS = 64;
const expectedCache = new Map<string, Expected>();

/**
 * The job's expected pods and their names, built once per job and replica counts, not on every reconcile
 * (a 2,048-pod job's reconcile otherwise built 2,048 names and a set of them each time).
 */
function expectedOf(job: ClusterJob): Expected {
  const id = `${job.ref.namespace}/${job.ref.name}`;
  const key = job.job.spec.replicaSpecs.map((spec) => `${spec.name}:${spec.replicas}`).join(",");
  const cached = expectedCache.get(id);
  if (cached?.key === key) return cached;
  const pods = expectedPods(job);
  const entry = { key, pods, names: new Set(pods.map((pod) => pod.name)) };
  expectedCache.delete(id);
  expectedCache.set(id, entry);
  const oldest = expectedCache.keys().next().value;
  if (expectedCache.size > EXPECTED_CACHE_JOBS && oldest !== undefined) expectedCache.delete(oldest);
  return entry;
}

type Indexed = { byName: ReadonlyMap<string, ClusterPod>; expected: Expected; strays: ClusterPod[] };
/**
 * Per pod list the back end answered: a back end that answers the same list while nothing changed (the
 * kubernetes one's pod index) costs a quiet reconcile no new map of its 2,048 pods.
 */
const indexed = new WeakMap<readonly ClusterPod[], Indexed>();

/** The job's pods by name, and those it does not expect (strays), once per list and expected pods. */
function indexOf(pods: readonly ClusterPod[], expected: Expected): Indexed {
  const cached = indexed.get(pods);
  if (cached?.expected === expected) return cached;
  const byName = new Map(pods.map((pod) => [pod.name, pod]));
  const entry = { byName, expected, strays: pods.filter((pod) => !expected.names.has(pod.name)) };
  indexed.set(pods, entry);
  return entry;
}

export type AgentView =
  | { kind: "status"; status: AgentStatus }
  | {
      kind: "error";
      error: AgentCallError;
      /** When the first call of this run of failures was sent. */
      since: number;
      /** When the latest failed call returned (absent: the observation's time). */
      failedAt?: number;
      /** This pod's agent answered before: it is past its start-up grace. */
      answered?: boolean;
      /** A pushing agent judged silent (server/operator/presence): a fault at once, no timeout to wait. */
      silent?: boolean;
    }
  | { kind: "none" };

export type PodView = { expected: ExpectedPod; pod: ClusterPod | null; agent: AgentView };

export type Observation = {
  now: number;
  job: ClusterJob;
  pods: PodView[];
  /** Pods of this job that are not expected (left over from a larger spec, or being deleted). */
  strays: ClusterPod[];
  nodes: ClusterNode[];
  /** How many agents were polled for this observation (the others pushed; absent: all polled). */
  polled?: number;
};

/**
 * Per pod, kept in memory across reconciles: when its agent's calls began failing (the unreachable
 * timeout counts from there) and which instance of the pod (its creation time) has answered at least once.
 */
export type FailureClock = Map<string, { failingSince: number | null; answered: number | null }>;

type PollMetrics = Pick<OperatorMetrics, "agentPolls" | "agentPollErrors">;

/** What a pushing agent's presence says, as a polled answer would say it. */
function pushedView(pushed: PushedView): AgentView {
  if (pushed.kind === "status") return pushed;
  const silentFor = pushed.detectedAt - pushed.lastHeardAt;
  return {
    kind: "error",
    error: { cause: "timeout", detail: `silent for ${silentFor} ms` },
    since: pushed.lastHeardAt,
    failedAt: pushed.detectedAt,
    answered: true,
    silent: true,
  };
}

/** At most this many /status polls of one observation are in flight at once. */
const POLLS_IN_FLIGHT = 32;

/** Runs `work` over `items` with at most `limit` at once; results in order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function viewAgent(opts: {
  pod: ClusterPod | null;
  agents: AgentClient;
  failures: FailureClock;
  key: string;
  now: number;
  clock: () => number;
  metrics?: PollMetrics;
}): Promise<AgentView> {
  const { pod, failures, key, now } = opts;
  if (pod?.phase !== "Running" || !pod.agentUrl) {
    failures.delete(key);
    return { kind: "none" };
  }
  const seen = failures.get(key) ?? { failingSince: null, answered: null };
  const sentAt = opts.clock();
  opts.metrics?.agentPolls.inc();
  const result = await opts.agents.status(pod.agentUrl);
  if (result.ok) {
    failures.set(key, { failingSince: null, answered: pod.createdAt });
    return { kind: "status", status: result.value };
  }
  opts.metrics?.agentPollErrors.inc({ cause: result.error.cause });
  // A call that timed out was sent while the agent was already stalled: the failure began at its sending.
  const since = seen.failingSince ?? Math.min(now, sentAt);
  failures.set(key, { ...seen, failingSince: since });
  return {
    kind: "error",
    error: result.error,
    since,
    failedAt: opts.clock(),
    answered: seen.answered === pod.createdAt,
  };
}

export async function observe(opts: {
  backend: ClusterBackend;
  agents: AgentClient;
  failures: FailureClock;
  job: ClusterJob;
  now: number;
  /** When each agent call returns (default: Date.now). */
  clock?: () => number;
  /** Agents that push are read from here, not polled (absent: every agent is polled). */
  presence?: Presence | null;
  metrics?: PollMetrics;
}): Promise<Observation> {
  const { backend, job, presence } = opts;
  const [pods, nodes] = await Promise.all([backend.listPods(job.ref), backend.listNodes()]);
  presence?.sync(jobKey(job.ref), pods);
  const expected = expectedOf(job);
  const { byName, strays } = indexOf(pods, expected);
  const views: PodView[] = [];
  const toPoll: { index: number; pod: ClusterPod | null }[] = [];
  for (const wanted of expected.pods) {
    const pod = byName.get(wanted.name) ?? null;
    const pushed = pod && presence ? presence.pushed(pod) : null;
    if (pushed === null) toPoll.push({ index: views.length, pod });
    views.push({ expected: wanted, pod, agent: pushed ? pushedView(pushed) : { kind: "none" } });
  }
  let polled = 0;
  await mapLimit(toPoll, POLLS_IN_FLIGHT, async ({ index, pod }) => {
    const view = views[index] as PodView;
    if (pod?.phase === "Running" && pod.agentUrl) polled += 1;
    view.agent = await viewAgent({
      pod,
      agents: opts.agents,
      failures: opts.failures,
      key: `${jobKey(job.ref)}/${view.expected.name}`,
      now: opts.now,
      clock: opts.clock ?? Date.now,
      metrics: opts.metrics,
    });
  });
  return { now: opts.now, job, pods: views, strays: [...strays], nodes, polled };
}

export function agentState(view: PodView): string | null {
  return view.agent.kind === "status" ? view.agent.status.status : null;
}
