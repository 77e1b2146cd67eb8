import { type ClusterNode, nodeReplaceAt } from "@/server/cluster/types";
import type { Fault } from "@/server/domain/recovery/types";
import type { AgentStatus } from "@/server/operator/agent-client";
import { AGENT_STATE_DRIFT, driftFault, faultedThisRun, mayHaveDrifted, missingRanks } from "./drift";
import type { Observation, ObservedPod } from "./observation";
import { faultedRanks, podRanks, reportedRanks } from "./ranks";

/**
 * Turns what the operator sees into at most one fault to act on, the most severe first:
 * node unhealthy > pod gone > agent FAULTED > agent unreachable past the timeout.
 */
export type DetectOptions = {
  agentTimeoutMs: number;
  ranksPerNode: number;
  /** A new pod's agent is not "unreachable" before it had this long to start listening. */
  podStartGraceMs: number;
};

const parseTime = (value: string | undefined): number | null => {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
};

/**
 * Maps an agent's fault reason (current and older spellings,
 * docs/hyperpod-compatibility.md, "The agent protocol") to our fault kinds.
 */
export function faultFromAgent(status: AgentStatus, base: Omit<Fault, "kind" | "reason">): Fault {
  const reason = status.reason ?? "WorkerFault";
  const rule = (prefix: string) => reason.slice(prefix.length);
  if (reason.startsWith("LogHang_")) return { ...base, kind: "LogHang", rule: rule("LogHang_"), reason };
  if (reason.startsWith("LogStateHanging_"))
    return { ...base, kind: "LogHang", rule: rule("LogStateHanging_"), reason };
  if (reason.startsWith("LogSlow_")) return { ...base, kind: "LogSlow", rule: rule("LogSlow_"), reason };
  if (reason.startsWith("LogStateSlow_"))
    return { ...base, kind: "LogSlow", rule: rule("LogStateSlow_"), reason };
  if (reason.startsWith("LogFault_")) return { ...base, kind: "LogFault", rule: rule("LogFault_"), reason };
  return { ...base, kind: "WorkerCrash", reason };
}

/**
 * Whether a view may be a fault as it stands or later without changing (an agent unreachable only past its
 * timeout), leaving node health aside: a pod not running nor starting, an agent that faulted or does not
 * answer. The detection index (observe.ts) keeps these, so detection reads them and not the healthy rest.
 */
export function mayHoldFault(view: ObservedPod): boolean {
  if (!view.pod || (view.pod.phase !== "Running" && view.pod.phase !== "Pending")) return true;
  const { agent } = view;
  if (agent.kind === "error" || mayHaveDrifted(view)) return true;
  return agent.kind === "status" && agent.status.status === "faulted";
}

/**
 * Per node list: the nodes whose pods are to be replaced, now or once a grace period is over (a back end
 * answers the same list while no node changed), by name.
 */
const unhealthyByList = new WeakMap<readonly ClusterNode[], ReadonlyMap<string, ClusterNode>>();

function unhealthyNodes(nodes: readonly ClusterNode[]): ReadonlyMap<string, ClusterNode> {
  let unhealthy = unhealthyByList.get(nodes);
  if (!unhealthy) {
    unhealthy = new Map(
      nodes.filter((node) => nodeReplaceAt(node) !== null).map((node) => [node.name, node]),
    );
    unhealthyByList.set(nodes, unhealthy);
  }
  return unhealthy;
}

/**
 * The views detection reads, in pod order: with the observation's index, those that may hold a fault and
 * those on `nodes`; without it (or once a step replaced the array), all of them. Either way the same fault
 * is found: every view left out is on a healthy node, running, and its agent reports no fault.
 */
function lookAt(obs: Observation, nodes: Iterable<string> = []): readonly ObservedPod[] {
  const { index } = obs;
  if (!index || index.pods !== obs.pods) return obs.pods;
  const at = new Set(index.suspects);
  for (const node of nodes) for (const each of index.onNode.get(node) ?? []) at.add(each);
  return [...at]
    .sort((a, b) => a - b)
    .flatMap((each) => {
      const view = obs.pods[each];
      return view ? [view] : [];
    });
}

/** Why the node's pods go, where a signal other than HyperPod's label says so (its source and reason). */
const nodeDetail = ({ verdict }: ClusterNode) =>
  verdict?.reason && verdict.source !== "hyperpod" ? { detail: verdict.reason } : {};

/** When the node's pods became due for replacement; null while none is (a grace period not over yet). */
function dueSince(node: ClusterNode | undefined, now: number): number | null {
  const at = node ? nodeReplaceAt(node) : null;
  if (at === null || (node?.verdict?.action === "replace-after-grace" && at > now)) return null;
  return at;
}

function nodeFault(
  obs: Observation,
  views: readonly ObservedPod[],
  unhealthy: ReadonlyMap<string, ClusterNode>,
  opts: DetectOptions,
): Fault | null {
  if (unhealthy.size === 0) return null;
  for (const view of views) {
    const node = view.pod?.node ? unhealthy.get(view.pod.node) : undefined;
    const at = dueSince(node, obs.now);
    if (!node || !view.pod || at === null) continue;
    const pods = views.filter((other) => other.pod?.node === node.name);
    return {
      kind: "NodeFault",
      reason: "NodeFault",
      ...nodeDetail(node),
      at,
      node: node.name,
      pods: pods.map((other) => other.expected.name),
      ranks: pods.flatMap((other) => podRanks(other, opts.ranksPerNode)),
    };
  }
  return null;
}

function podGone(obs: Observation, views: readonly ObservedPod[], opts: DetectOptions): Fault | null {
  for (const view of views) {
    if (view.pod && (view.pod.phase === "Running" || view.pod.phase === "Pending")) continue;
    return {
      kind: "PodGone",
      reason: view.pod ? `Pod${view.pod.phase}` : "PodMissing",
      at: view.pod?.finishedAt ?? obs.now,
      node: view.pod?.node ?? undefined,
      pods: [view.expected.name],
      ranks: podRanks(view, opts.ranksPerNode),
    };
  }
  return null;
}

function agentFault(obs: Observation, views: readonly ObservedPod[], opts: DetectOptions): Fault | null {
  for (const view of views) {
    if (view.agent.kind !== "status" || view.agent.status.status !== "faulted") continue;
    const status = view.agent.status;
    const at = parseTime(status.fault_at) ?? parseTime(status.transitions?.FAULTED) ?? obs.now;
    return faultFromAgent(status, {
      at: Math.min(at, obs.now),
      node: view.pod?.node ?? undefined,
      pods: [view.expected.name],
      ranks: faultedRanks(view, opts.ranksPerNode),
    });
  }
  return null;
}

/**
 * Counted to when the latest failed call returned (one call timing out after agentTimeoutMs is enough);
 * the start-up grace is for an agent that has not answered yet, never for one that stalled later. A
 * pushing agent judged silent (server/operator/presence: no line nor heartbeat past the silence threshold)
 * is past it at once: the threshold was its timeout.
 */
function pastTimeout(
  view: ObservedPod,
  agent: Extract<ObservedPod["agent"], { kind: "error" }>,
  at: { obs: Observation; opts: DetectOptions },
): boolean {
  if (agent.silent) return true;
  const grace = agent.answered ? 0 : (view.pod?.createdAt ?? 0) + at.opts.podStartGraceMs;
  const since = Math.max(agent.since, grace);
  return (agent.failedAt ?? at.obs.now) - since >= at.opts.agentTimeoutMs;
}

/** Pods whose agents are unreachable past their timeout, or judged silent: as good as gone. */
export function unreachablePods(
  obs: Observation,
  opts: DetectOptions,
  views: readonly ObservedPod[] = lookAt(obs),
): ObservedPod[] {
  return views.filter((view) => view.agent.kind === "error" && pastTimeout(view, view.agent, { obs, opts }));
}

function unreachable(obs: Observation, views: readonly ObservedPod[], opts: DetectOptions): Fault | null {
  for (const view of unreachablePods(obs, opts, views)) {
    if (view.agent.kind !== "error") continue;
    return {
      kind: "AgentUnreachable",
      cause: view.agent.error.cause === "invalid-response" ? "invalid-response" : "timeout",
      reason: "AgentUnreachable",
      at: view.agent.since,
      node: view.pod?.node ?? undefined,
      pods: [view.expected.name],
      ranks: podRanks(view, opts.ranksPerNode),
    };
  }
  return null;
}

/**
 * A reconcile reads the views that may hold a fault and those on unhealthy nodes, not the job's healthy
 * rest: finding a fault in a 2,048-pod job costs what it costs in a small one.
 */
export function detectFault(obs: Observation, opts: DetectOptions): Fault | null {
  const unhealthy = unhealthyNodes(obs.nodes);
  const views = lookAt(obs, unhealthy.keys());
  return (
    nodeFault(obs, views, unhealthy, opts) ??
    podGone(obs, views, opts) ??
    agentFault(obs, views, opts) ??
    unreachable(obs, views, opts)
  );
}

/**
 * A Running job's agent that drifted from what the operator asked (drift.ts), with its message; read only
 * in the Running phase, after detectFault found nothing (a crash the agent reports keeps its reason).
 */
export function detectDrift(obs: Observation, opts: DetectOptions): { fault: Fault; message: string } | null {
  const peers = ranksBySpec(obs.pods, opts.ranksPerNode);
  const at = (view: ObservedPod) => ({ perNode: peers.get(view.expected.replicaSpec) ?? 0, now: obs.now });
  for (const view of lookAt(obs)) {
    const drift = driftFault(view, at(view));
    if (drift) return ownFault(view, drift, obs.now);
  }
  // A pod running fewer ranks than its peers, which the index cannot tell from one view (drift.ts).
  for (const view of obs.pods) {
    if (missingRanks(view, at(view).perNode).length === 0) continue;
    const drift = driftFault(view, at(view));
    if (drift) return drift;
  }
  return null;
}

/**
 * Per replica spec, the most ranks one of its pods lists: what its pods started with (specs may run
 * different process counts). Without any list, the job's ranks per node.
 */
function ranksBySpec(views: readonly ObservedPod[], fallback: number): Map<string, number> {
  const most = new Map<string, number>();
  for (const view of views) {
    const count = reportedRanks(view).length;
    const spec = view.expected.replicaSpec;
    most.set(spec, Math.max(most.get(spec) ?? 0, count));
  }
  for (const [spec, count] of most) if (count === 0) most.set(spec, fallback);
  return most;
}

/** A drifted agent that faulted on its own in this run, then was stopped, keeps its own fault and reason. */
function ownFault(view: ObservedPod, drift: { fault: Fault; message: string }, now: number) {
  const { agent } = view;
  if (agent.kind !== "status" || drift.fault.reason !== AGENT_STATE_DRIFT || !faultedThisRun(agent.status))
    return drift;
  const { status } = agent;
  const { pods, node, ranks } = drift.fault;
  const at = Math.min(parseTime(status.fault_at) ?? parseTime(status.transitions?.FAULTED) ?? now, now);
  return {
    fault: faultFromAgent(status, { at, pods, node, ranks }),
    message: status.message ?? drift.message,
  };
}

/** Every expected pod's agent reports COMPLETED. */
export function allCompleted(obs: Observation): boolean {
  return (
    obs.pods.length > 0 &&
    obs.pods.every((view) => view.agent.kind === "status" && view.agent.status.status === "completed")
  );
}
