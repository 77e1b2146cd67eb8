import type { CoreV1Event, V1Container, V1Node, V1Pod } from "@kubernetes/client-node";
import type {
  ClusterEvent,
  ClusterJob,
  ClusterNode,
  ClusterPod,
  JobObjectUpdate,
  NodeHealth,
  PodPhase,
} from "@/server/cluster/types";
import { JOB_API_VERSION, JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import { parseJobObject } from "@/server/domain/job-spec/parse-job";
import {
  evaluateNode,
  type NodeFacts,
  type NodeMetric,
  type NodeVerdict,
  verdictFingerprint,
} from "@/server/domain/node-health/evaluate";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { AGENT_CREDENTIAL_ENV } from "../agent-credential";
import { operatorInjectedEnv, withInjectedEnv } from "../pod-env";

/**
 * Pure conversions between Kubernetes objects and the back-end-neutral shapes of server/cluster/types.ts,
 * and the pod the operator creates for one replica. No I/O: unit-tested without an API server.
 */

export const LABEL_JOB = "HPJob";
export const LABEL_REPLICA_SPEC = "rebound.dev/replica-spec";
export const LABEL_REPLICA_INDEX = "rebound.dev/replica-index";
/** Tests and out-of-cluster set-ups say where a pod's agent listens; otherwise pod IP : agent port. */
export const ANNOTATION_AGENT_URL = "rebound.dev/agent-url";
export const LABEL_NODE_HEALTH = "sagemaker.amazonaws.com/node-health-status";
export const JOB_FINALIZER = "rebound.dev/cleanup";
export const GPU_RESOURCE = "nvidia.com/gpu";
export const DEFAULT_AGENT_PORT = 8080;
/** Marks a CRD as installed by Rebound, so an installer never replaces AWS's (or anyone else's) CRD. */
export const CRD_OWNER_ANNOTATION = "rebound.dev/owned-by";
export const CRD_OWNER = "rebound";

/** The custom resource as stored: the validated job plus what the API server adds. */
export type JobObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string | Date;
    deletionTimestamp?: string | Date;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: unknown;
  status?: JobStatus;
};

const SERVER_METADATA = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "finalizers",
  "managedFields",
  "ownerReferences",
  "selfLink",
] as const;

const toMs = (value: string | Date | undefined): number =>
  value === undefined ? 0 : value instanceof Date ? value.getTime() : Date.parse(value);

/** A job as the operator sees it; null (with the reasons) when the object does not satisfy our schema. */
export function toClusterJob(
  object: JobObject,
): { ok: true; job: ClusterJob } | { ok: false; errors: string[] } {
  const metadata = { ...(object.metadata ?? {}) } as Record<string, unknown>;
  for (const key of SERVER_METADATA) delete metadata[key];
  const parsed = parseJobObject({
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata,
    spec: object.spec,
  });
  if (!parsed.ok) return { ok: false, errors: parsed.errors.map((error) => error.message) };
  return {
    ok: true,
    job: {
      ref: { namespace: object.metadata?.namespace ?? "default", name: object.metadata?.name ?? "" },
      uid: object.metadata?.uid ?? "",
      generation: object.metadata?.generation ?? 1,
      createdAt: new Date(toMs(object.metadata?.creationTimestamp)),
      object: parsed.job,
      status: object.status ?? {},
      deleting: object.metadata?.deletionTimestamp !== undefined,
      // The version a client edits the spec against: metadata.generation moves with spec changes only, so
      // the operator's frequent status writes do not make an edit loaded a moment ago stale.
      resourceVersion: String(object.metadata?.generation ?? 1),
    },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A key of `from` that `to` no longer has: sent as null (removed). */
const removedKeys = (from: Record<string, unknown>, to: Record<string, unknown>) =>
  Object.keys(from).filter((key) => to[key] === undefined);

/**
 * A JSON merge patch (RFC 7386) that turns `from` into `to`: a merge patch merges objects key by key, so a
 * key `to` no longer has is sent as null (removed) at every depth; lists and scalars are replaced whole.
 */
export function replacementMergePatch(from: unknown, to: unknown): unknown {
  if (to === undefined) return null;
  if (!isPlainObject(from) || !isPlainObject(to)) return to;
  const patch: Record<string, unknown> = Object.fromEntries(removedKeys(from, to).map((key) => [key, null]));
  for (const [key, value] of Object.entries(to)) {
    if (value !== undefined) patch[key] = replacementMergePatch(from[key], value);
  }
  return patch;
}

/**
 * The merge patch of an update (issue 12): the resourceVersion just read (the API server applies it only
 * while the object is still at it), annotations set or removed (null), and spec.runPolicy replaced when the
 * update carries one. The caller's expected version (a generation) is checked before the patch is built.
 */
export function jobUpdatePatch(object: JobObject, update: JobObjectUpdate): Record<string, unknown> {
  const resourceVersion = object.metadata?.resourceVersion;
  const patch: Record<string, unknown> = { metadata: { resourceVersion, annotations: update.annotations } };
  if (update.runPolicy !== undefined) {
    const current = (object.spec as { runPolicy?: unknown } | undefined)?.runPolicy;
    patch.spec = { runPolicy: replacementMergePatch(current, update.runPolicy) };
  }
  return patch;
}

const PHASES: ReadonlySet<string> = new Set(["Pending", "Running", "Succeeded", "Failed", "Unknown"]);

function finishedAt(pod: V1Pod): number | null {
  const times = (pod.status?.containerStatuses ?? []).flatMap((status) => {
    const at = status.state?.terminated?.finishedAt;
    return at ? [toMs(at)] : [];
  });
  return times.length > 0 ? Math.max(...times) : null;
}

function phaseOf(pod: V1Pod): PodPhase {
  // A pod being deleted is no longer one the job can use: it counts as failed from then on.
  if (pod.metadata?.deletionTimestamp) return "Failed";
  const raw = pod.status?.phase ?? "Pending";
  return PHASES.has(raw) ? (raw as PodPhase) : "Unknown";
}

function agentUrlOf(pod: V1Pod, agentPort: number): string | null {
  const annotated = pod.metadata?.annotations?.[ANNOTATION_AGENT_URL];
  if (annotated) return annotated;
  const ip = pod.status?.podIP;
  if (!ip) return null;
  return `http://${ip.includes(":") ? `[${ip}]` : ip}:${agentPort}`;
}

const podIpOf = (pod: V1Pod): string | null => pod.status?.podIP ?? null;

export function toClusterPod(pod: V1Pod, agentPort = DEFAULT_AGENT_PORT): ClusterPod {
  const labels = pod.metadata?.labels ?? {};
  const phase = phaseOf(pod);
  const finished = phase === "Failed" || phase === "Succeeded";
  return {
    name: pod.metadata?.name ?? "",
    namespace: pod.metadata?.namespace ?? "",
    job: labels[LABEL_JOB] ?? "",
    replicaSpec: labels[LABEL_REPLICA_SPEC] ?? "",
    index: Number(labels[LABEL_REPLICA_INDEX] ?? 0),
    node: pod.spec?.nodeName ?? null,
    phase,
    agentUrl: agentUrlOf(pod, agentPort),
    ip: podIpOf(pod),
    createdAt: toMs(pod.metadata?.creationTimestamp),
    finishedAt: finished ? (finishedAt(pod) ?? toMs(pod.metadata?.deletionTimestamp)) : null,
  };
}

const LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type";

/** What the node-signal table reads of a Node (server/domain/node-health), with its metric series if any. */
export function nodeFacts(node: V1Node, metrics?: readonly NodeMetric[]): NodeFacts {
  return {
    ...(metrics ? { metrics } : {}),
    labels: node.metadata?.labels ?? {},
    conditions: (node.status?.conditions ?? []).map(({ type, status, reason, message }) => ({
      type,
      status,
      reason,
      message,
    })),
    taints: (node.spec?.taints ?? []).map(({ key, value, effect }) => ({ key, value, effect })),
    unschedulable: node.spec?.unschedulable === true,
    capacity: node.status?.capacity ?? {},
    allocatable: node.status?.allocatable ?? {},
  };
}

/** The node as last judged, for a signal's start: what `toClusterNode` needs besides the node. */
export type NodeJudgement = {
  changedAt: number;
  now: number;
  table: NodeSignalTable;
  previous?: NodeVerdict | null;
  /** The node's metric series (server/metrics/node-metrics.ts), when a metrics source runs. */
  metrics?: readonly NodeMetric[];
};

/**
 * Node health: the HyperPod label (absent = Schedulable; a cordon shows as Unschedulable), NodeReady, GPUs
 * from allocatable, and the verdict of the node-signal table, which decides (types.ts: isNodeHealthy).
 */
export function toClusterNode(node: V1Node, judged: NodeJudgement): ClusterNode {
  const { changedAt } = judged;
  const ready = (node.status?.conditions ?? []).some(
    (condition) => condition.type === "Ready" && condition.status === "True",
  );
  const gpus = Number(node.status?.allocatable?.[GPU_RESOURCE] ?? node.status?.capacity?.[GPU_RESOURCE] ?? 0);
  const health = (node.metadata?.labels?.[LABEL_NODE_HEALTH] ?? "Schedulable") as NodeHealth | string;
  const cordoned = node.spec?.unschedulable === true;
  const instanceType = node.metadata?.labels?.[LABEL_INSTANCE_TYPE];
  return {
    name: node.metadata?.name ?? "",
    health: cordoned && health === "Schedulable" ? "Unschedulable" : health,
    ready,
    gpus: Number.isFinite(gpus) ? gpus : 0,
    ...(instanceType ? { instanceType } : {}),
    changedAt,
    verdict: evaluateNode(nodeFacts(node, judged.metrics), judged.table, {
      now: judged.now,
      previous: judged.previous,
    }),
  };
}

/** What makes a node change matter to the operator (so heartbeats alone do not wake every job). */
export const nodeFingerprint = (node: ClusterNode): string =>
  `${node.health}|${node.ready}|${node.gpus}|${node.verdict ? verdictFingerprint(node.verdict) : ""}`;

export function toClusterEvent(event: CoreV1Event): ClusterEvent {
  const at =
    event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return {
    type: event.type === "Warning" ? "Warning" : "Normal",
    reason: event.reason ?? "",
    message: event.message ?? "",
    at: toMs(at as string | Date | undefined),
  };
}

export const podName = (job: string, replicaSpec: string, index: number) => `${job}-${replicaSpec}-${index}`;

/** GPUs a pod asks for: the sum of its containers' nvidia.com/gpu limits (or requests). */
export function podGpuRequest(pod: V1Pod): number {
  let total = 0;
  for (const container of pod.spec?.containers ?? []) {
    const value =
      container.resources?.limits?.[GPU_RESOURCE] ?? container.resources?.requests?.[GPU_RESOURCE];
    total += Number(value ?? 0) || 0;
  }
  return total;
}

/**
 * No service-account token in a job's pods unless the job asks for one: a token mounted by default lets
 * every training process call the API server as its namespace's `default` account. The job asks by
 * setting `automountServiceAccountToken` in its template (kept as it is, true or false), or by naming a
 * `serviceAccountName` (or the deprecated `serviceAccount`) (an identity the job chose is one it means to use; Kubernetes then mounts as that
 * account's own `automountServiceAccountToken` says, true unless it says otherwise).
 */
export function serviceAccountTokenMount(templateSpec: Record<string, unknown>): {
  automountServiceAccountToken?: boolean;
} {
  if (typeof templateSpec.automountServiceAccountToken === "boolean") return {};
  const named = templateSpec.serviceAccountName ?? templateSpec.serviceAccount; // the latter is deprecated
  if (typeof named === "string" && named !== "") return {};
  return { automountServiceAccountToken: false };
}

/**
 * The pod for one replica: the replica spec's template, plus our labels, the job as controlling owner,
 * a stable hostname under the job's headless Service, the node we placed it on, restartPolicy Never
 * (restarts are the operator's decision, not the kubelet's), no service-account token unless the job asks
 * (serviceAccountTokenMount), and in every container the environment HyperPod's operator injects (`NNODES`,
 * see server/cluster/pod-env.ts). Nothing of the operator's own (its environment, its credentials) is
 * copied into the pod: everything here comes from the job.
 */
/** A container that runs our agent (its command names rebound-agent), which asks for the credential. */
const runsOurAgent = (container: Record<string, unknown>) =>
  [container.command, container.args].some(
    (list) => Array.isArray(list) && list.some((token) => /rebound-agent/.test(String(token))),
  );

/**
 * The container's env with the pod's agent credential (server/cluster/agent-credential.ts) last, any entry
 * of that name the job set dropped: the operator sends the credential it derived, so the agent must hold
 * that one. A value in the pod's spec is readable by whoever may read pods in the job's namespace (the
 * team, cluster admins), not by other teams' pods; the agents' NetworkPolicy (deploy/agents/) keeps those
 * off the port as well.
 */
function withAgentCredential(env: unknown[], credential: string): unknown[] {
  const kept = env.filter((item) => (item as { name?: unknown }).name !== AGENT_CREDENTIAL_ENV);
  return [...kept, { name: AGENT_CREDENTIAL_ENV, value: credential }];
}

export function buildPod(input: {
  job: ClusterJob;
  replicaSpec: string;
  index: number;
  node: string;
  /** The pod's agent credential, given to the containers that run our agent; absent: none. */
  agentCredential?: string | null;
}): V1Pod {
  const { job } = input;
  const spec = job.object.spec.replicaSpecs.find((candidate) => candidate.name === input.replicaSpec);
  if (!spec) throw new Error(`job ${job.ref.name} has no replica spec "${input.replicaSpec}"`);
  const template = spec.template as {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec: Record<string, unknown>;
  };
  const name = podName(job.ref.name, input.replicaSpec, input.index);
  const injected = operatorInjectedEnv(job.object);
  const containers = (template.spec.containers as Array<Record<string, unknown>>).map((container) => {
    const env = withInjectedEnv(container.env, injected);
    return {
      ...container,
      env:
        input.agentCredential && runsOurAgent(container)
          ? withAgentCredential(env, input.agentCredential)
          : env,
    };
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: job.ref.namespace,
      labels: {
        ...(template.metadata?.labels ?? {}),
        [LABEL_JOB]: job.ref.name,
        [LABEL_REPLICA_SPEC]: input.replicaSpec,
        [LABEL_REPLICA_INDEX]: String(input.index),
      },
      annotations: { ...(template.metadata?.annotations ?? {}) },
      ownerReferences: [
        {
          apiVersion: JOB_API_VERSION,
          kind: JOB_KIND,
          name: job.ref.name,
          uid: job.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...(template.spec as unknown as V1Pod["spec"] & object),
      ...serviceAccountTokenMount(template.spec),
      containers: containers as unknown as V1Container[],
      nodeName: input.node,
      // A DNS name <pod>.<job>.<namespace>.svc under the job's headless Service (labels are ≤ 63 chars).
      ...(name.length <= 63 && job.ref.name.length <= 63 ? { hostname: name, subdomain: job.ref.name } : {}),
      restartPolicy: "Never",
    },
  };
}
