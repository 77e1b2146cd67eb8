import type { ClusterBackend, ClusterJob, ClusterPod } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { AgentClient } from "@/server/operator/agent-client";
import type { OperatorMetrics } from "@/server/operator/metrics";
import type { Presence, PushedView } from "@/server/operator/presence/presence";
import { mayHoldFault } from "./detect";
import type { AgentView, ExpectedPod, FailureClock, Observation, ObservedPod } from "./observation";

export type {
  AgentView,
  DetectionIndex,
  ExpectedPod,
  FailureClock,
  Observation,
  ObservedPod,
} from "./observation";

/** The pods a job should have, in node-rank order. */
export function expectedPods(job: ClusterJob): ExpectedPod[] {
  const pods: ExpectedPod[] = [];
  for (const spec of job.object.spec.replicaSpecs) {
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
  const key = job.object.spec.replicaSpecs.map((spec) => `${spec.name}:${spec.replicas}`).join(",");
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
const indexedLists = new WeakMap<readonly ClusterPod[], Indexed>();

/** The job's pods by name, and those it does not expect (strays), once per list and expected pods. */
function indexOf(pods: readonly ClusterPod[], expected: Expected): Indexed {
  const cached = indexedLists.get(pods);
  if (cached?.expected === expected) return cached;
  const byName = new Map(pods.map((pod) => [pod.name, pod]));
  const entry = { byName, expected, strays: pods.filter((pod) => !expected.names.has(pod.name)) };
  indexedLists.set(pods, entry);
  return entry;
}

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
 * (their agents do not push), each pod's index by its presence key, and the pod list they were built from.
 */
type Kept = {
  expected: Expected;
  list: Indexed;
  views: ObservedPod[];
  toPoll: Set<number>;
  at: Map<string, number>;
  /**
   * The views that may hold a fault, and the views by their pod's node (DetectionIndex); kept only with the
   * views (null: built for one reconcile, whose detection reads every view as cheaply as it would build this).
   */
  index: { suspects: Set<number>; onNode: Map<string, Set<number>> } | null;
};

const NO_AGENT: AgentView = { kind: "none" };
/** Jobs whose views are kept, per operator process (presence); past that the oldest is built again. */
const KEPT_JOBS = 256;
const keptByPresence = new WeakMap<Presence, Map<string, Kept>>();

/** Notes view `index` as on its pod's node (or on none). */
function placeOnNode(
  onNode: Map<string, Set<number>>,
  index: number,
  move: { was: string | null; node: string | null },
): void {
  const { was, node } = move;
  if (was === node) return;
  const before = was === null ? undefined : onNode.get(was);
  before?.delete(index);
  if (was !== null && before?.size === 0) onNode.delete(was);
  if (node === null) return;
  const after = onNode.get(node);
  if (after) after.add(index);
  else onNode.set(node, new Set([index]));
}

/** Builds view `index` again, for `pod` (the listed one) and what presence says of its agent now. */
function refresh(kept: Kept, index: number, pod: ClusterPod | null, presence: Presence | null): void {
  const wanted = kept.expected.pods[index];
  if (!wanted) return;
  const pushed = pod && presence ? presence.pushed(pod) : null;
  const view: ObservedPod = { expected: wanted, pod, agent: pushed ? pushedView(pushed) : NO_AGENT };
  if (kept.index) reindex(kept.index, index, { before: kept.views[index], view });
  kept.views[index] = view;
  if (pushed) kept.toPoll.delete(index);
  else kept.toPoll.add(index);
}

/** The detection index after view `index` changed from `before` to `view`. */
function reindex(
  detection: NonNullable<Kept["index"]>,
  index: number,
  change: { before: ObservedPod | undefined; view: ObservedPod },
): void {
  const { before, view } = change;
  placeOnNode(detection.onNode, index, { was: before?.pod?.node ?? null, node: view.pod?.node ?? null });
  if (mayHoldFault(view)) detection.suspects.add(index);
  else detection.suspects.delete(index);
}

/**
 * Every expected pod's view, from the listed pods and presence; with what keeping them needs (`keep`: each
 * pod's index by its presence key, the detection index), or for one reconcile.
 */
function buildViews(
  list: Indexed,
  presence: Presence | null,
  opts: { namespace: string; keep: boolean },
): Kept {
  const { expected } = list;
  const kept: Kept = {
    expected,
    list,
    views: [],
    toPoll: new Set(),
    at: new Map(),
    index: opts.keep ? { suspects: new Set(), onNode: new Map() } : null,
  };
  expected.pods.forEach((wanted, index) => {
    if (opts.keep) kept.at.set(`${opts.namespace}/${wanted.name}`, index);
    refresh(kept, index, list.byName.get(wanted.name) ?? null, presence);
  });
  return kept;
}

/** A new pod list: the views of pods that are new, changed or gone are built again, the others kept. */
function followList(kept: Kept, list: Indexed, presence: Presence): void {
  if (kept.list === list) return;
  kept.expected.pods.forEach((wanted, index) => {
    const pod = list.byName.get(wanted.name) ?? null;
    if (kept.views[index]?.pod !== pod) refresh(kept, index, pod, presence);
  });
  kept.list = list;
}

/** Keeps `kept` as the job's newest, dropping the least recently observed job past KEPT_JOBS. */
function remember(jobs: Map<string, Kept>, jobKey: string, kept: Kept): Kept {
  jobs.delete(jobKey);
  jobs.set(jobKey, kept);
  const oldest = jobs.keys().next().value;
  if (jobs.size > KEPT_JOBS && oldest !== undefined) jobs.delete(oldest);
  return kept;
}

/**
 * The job's views before polling. When presence can say which agents changed, the views are kept between
 * reconciles and only those of pods that changed (in the list: new, replaced, gone; or their agent) are
 * built again: a reconcile of a quiet 2,048-pod job, or the one that finds a fault, reads what changed, not
 * every agent of the job. Otherwise (no presence, or it cannot tell) all are built, and kept for nothing.
 */
function keptViews(list: Indexed, presence: Presence | null, job: ClusterJob): Kept {
  const key = jobKey(job.ref);
  const changed = presence?.takeChanged(key) ?? null;
  const { namespace } = job.ref;
  if (!presence || changed === null) return buildViews(list, presence, { namespace, keep: false });
  let jobs = keptByPresence.get(presence);
  if (!jobs) {
    jobs = new Map();
    keptByPresence.set(presence, jobs);
  }
  const kept = jobs.get(key);
  if (kept?.expected !== list.expected)
    return remember(jobs, key, buildViews(list, presence, { namespace, keep: true }));
  followList(kept, list, presence);
  for (const pod of changed) {
    const index = kept.at.get(pod);
    if (index !== undefined) refresh(kept, index, kept.views[index]?.pod ?? null, presence);
  }
  return remember(jobs, key, kept);
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
  const kept = keptViews(indexed, presence ?? null, job);
  // This reconcile's own array: a step replaces views in it, never in what is kept.
  const views = [...kept.views];
  let polled = 0;
  await mapLimit([...kept.toPoll], POLLS_IN_FLIGHT, async (index) => {
    const view = views[index] as ObservedPod;
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
  const obs = { now: opts.now, job, pods: views, strays: [...indexed.strays], nodes, polled };
  if (!kept.index) return obs;
  // Polled agents are read afresh: their views are looked at, as are those that may hold a fault.
  const suspects = new Set([...kept.index.suspects, ...kept.toPoll]);
  return { ...obs, index: { pods: views, suspects, onNode: kept.index.onNode } };
}

/**
 * A step that created or deleted a view's pod says so here: the view is replaced in this reconcile's
 * observation (views are kept for the next reconcile, so never changed in place), with no agent seen yet.
 */
export function replacePod(obs: Observation, view: ObservedPod, pod: ClusterPod | null): void {
  const guess = view.expected.groupRank;
  const index = obs.pods[guess] === view ? guess : obs.pods.indexOf(view);
  if (index < 0) return;
  obs.pods[index] = { expected: view.expected, pod, agent: NO_AGENT };
  obs.index?.suspects.add(index);
}

export function agentState(view: ObservedPod): string | null {
  return view.agent.kind === "status" ? view.agent.status.status : null;
}
