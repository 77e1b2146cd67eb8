import type { ClusterBackend, ClusterJob, ClusterNode, ClusterPod } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { AgentCallError, AgentClient, AgentStatus } from "@/server/operator/agent-client";
import type { OperatorMetrics } from "@/server/operator/metrics";
import { type Presence, type PushedView, podKey } from "@/server/operator/presence/presence";

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

type Indexed = {
  byName: ReadonlyMap<string, ClusterPod>;
  expected: Expected;
  strays: ClusterPod[];
  /** The views built from this list, kept for the next reconcile that gets the same list (keptViews). */
  kept?: Kept;
};
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

/** Shared between reconciles (keptViews): a step that changes a pod replaces its view in `obs.pods`. */
export type PodView = Readonly<{ expected: ExpectedPod; pod: ClusterPod | null; agent: AgentView }>;

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

/**
 * A job's views as of its last observation, before polling: a view per expected pod, which of them to poll
 * (their agents do not push), and each pod's index by its presence key.
 */
type Kept = { presence: Presence | null; views: PodView[]; toPoll: Set<number>; at: Map<string, number> };

const NO_AGENT: AgentView = { kind: "none" };

function viewOf(wanted: ExpectedPod, pod: ClusterPod | null, presence: Presence | null) {
  const pushed = pod && presence ? presence.pushed(pod) : null;
  return { view: { expected: wanted, pod, agent: pushed ? pushedView(pushed) : NO_AGENT }, poll: !pushed };
}

/** Builds again the views of the pods whose agents changed (their presence keys). */
function updateKept(kept: Kept, changed: ReadonlySet<string>): Kept {
  for (const key of changed) {
    const index = kept.at.get(key);
    const old = index === undefined ? undefined : kept.views[index];
    if (index === undefined || !old) continue;
    const { view, poll } = viewOf(old.expected, old.pod, kept.presence);
    kept.views[index] = view;
    if (poll) kept.toPoll.add(index);
    else kept.toPoll.delete(index);
  }
  return kept;
}

/** Every expected pod's view, from the listed pods and presence. */
function buildViews(indexed: Indexed, presence: Presence | null): Kept {
  const views: PodView[] = [];
  const toPoll = new Set<number>();
  const at = new Map<string, number>();
  for (const wanted of indexed.expected.pods) {
    const pod = indexed.byName.get(wanted.name) ?? null;
    const { view, poll } = viewOf(wanted, pod, presence);
    if (poll) toPoll.add(views.length);
    if (pod) at.set(podKey(pod), views.length);
    views.push(view);
  }
  return { presence, views, toPoll, at };
}

/**
 * The job's views before polling. With the same pod list as last time and presence able to say which
 * agents changed, only those pods' views are built again: a reconcile of a quiet 2,048-pod job, or the one
 * that finds a fault, reads the changed agents, not every agent of the job. Otherwise all are built (and,
 * with presence, kept for the next reconcile; without it every agent is polled each time).
 */
function keptViews(indexed: Indexed, presence: Presence | null, jobKey: string): Kept {
  const changed = presence?.takeChanged(jobKey) ?? null;
  const kept = indexed.kept;
  if (changed !== null && kept?.presence === presence) return updateKept(kept, changed);
  const built = buildViews(indexed, presence);
  if (presence) indexed.kept = built;
  return built;
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
  const indexed = indexOf(pods, expected);
  const kept = keptViews(indexed, presence ?? null, jobKey(job.ref));
  // This reconcile's own array: a step replaces views in it, never in what is kept.
  const views = [...kept.views];
  let polled = 0;
  await mapLimit([...kept.toPoll], POLLS_IN_FLIGHT, async (index) => {
    const view = views[index] as PodView;
    const { pod } = view;
    if (pod?.phase === "Running" && pod.agentUrl) polled += 1;
    const agent = await viewAgent({
      pod,
      agents: opts.agents,
      failures: opts.failures,
      key: `${jobKey(job.ref)}/${view.expected.name}`,
      now: opts.now,
      clock: opts.clock ?? Date.now,
      metrics: opts.metrics,
    });
    views[index] = { ...view, agent };
  });
  return { now: opts.now, job, pods: views, strays: [...indexed.strays], nodes, polled };
}

/**
 * A step that created or deleted a view's pod says so here: the view is replaced in this reconcile's
 * observation (views are kept for the next reconcile, so never changed in place), with no agent seen yet.
 */
export function replacePod(obs: Observation, view: PodView, pod: ClusterPod | null): void {
  const guess = view.expected.groupRank;
  const index = obs.pods[guess] === view ? guess : obs.pods.indexOf(view);
  if (index >= 0) obs.pods[index] = { expected: view.expected, pod, agent: NO_AGENT };
}

export function agentState(view: PodView): string | null {
  return view.agent.kind === "status" ? view.agent.status.status : null;
}
