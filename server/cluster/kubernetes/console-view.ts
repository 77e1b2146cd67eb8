import { ApiextensionsV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { type ClusterEvent, isNodeHealthy, type JobRef } from "@/server/cluster/types";
import { jobSize } from "@/server/domain/job-spec/job-size";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { JOB_CRD_NAME } from "@/server/domain/job-spec/job-spec.schema";
import type { NodeVerdict } from "@/server/domain/node-health/evaluate";
import type { RankOutput } from "@/server/domain/operator-api/rank-output";
import type { KubernetesBackend } from "./backend";
import {
  CRD_OWNER,
  CRD_OWNER_ANNOTATION,
  type JobObject,
  LABEL_JOB,
  podGpuRequest,
  toClusterPod,
} from "./objects";

/**
 * What the console reads from a cluster, all from the back end's informer caches (no API request per page
 * view). Jobs are read leniently from the stored objects, so a real HyperPod cluster whose operator is
 * AWS's (console-only mode) shows every job, even ones our own schema would refuse; per-rank detail then
 * comes from pods (and metrics), not from our operator's live state.
 */

export const KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
export const KUEUE_PRIORITY_LABEL = "kueue.x-k8s.io/priority-class";

export type ConsoleJob = {
  namespace: string;
  name: string;
  uid: string;
  createdAt: number;
  /** The latest condition's type (Created, PodsRunning, Running, Completed, Failed, Suspended) or Pending. */
  status: string;
  statusMessage: string;
  restartCount: number;
  nodes: number;
  ranks: number | null;
  gpus: number;
  queue: string | null;
  priorityClass: string | null;
  pods: Array<{ name: string; node: string | null; phase: string }>;
};

export type ConsoleNode = {
  name: string;
  health: string;
  ready: boolean;
  healthy: boolean;
  gpus: number;
  gpusUsed: number;
  jobs: string[];
  /** The node judged against the node-signal table, as the operator judges it. */
  verdict?: NodeVerdict;
};

export type ClusterMode = "managed" | "console-only";

export type ConsoleView = {
  readonly mode: ClusterMode;
  jobs(): ConsoleJob[];
  job(ref: JobRef): ConsoleJob | null;
  nodes(): Promise<ConsoleNode[]>;
  events(ref: JobRef): Promise<ClusterEvent[]>;
  logs(ref: JobRef, pod: string, tailLines: number): Promise<string>;
  /** A rank's output with the runtime's timestamps; its attempt's start is not known here (no agent status). */
  rankOutput(ref: JobRef, pod: string, localRank: number): Promise<RankOutput>;
};

type Condition = { type?: string; status?: string; message?: string; lastTransitionTime?: string };

function latestCondition(object: JobObject): Condition | null {
  const conditions = ((object.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(
    (condition) => condition.status === "True",
  );
  return conditions.at(-1) ?? null;
}

function statusOf(object: JobObject): Pick<ConsoleJob, "status" | "statusMessage" | "restartCount"> {
  const condition = latestCondition(object);
  return {
    status: condition?.type ?? "Pending",
    statusMessage: condition?.message ?? "",
    restartCount: Number((object.status as { restartCount?: number } | undefined)?.restartCount ?? 0),
  };
}

/** Nodes, ranks and GPUs from a spec that may not satisfy our schema (another operator's job). */
function sizeOf(object: JobObject): Pick<ConsoleJob, "nodes" | "ranks" | "gpus"> {
  try {
    const size = jobSize(object as unknown as HyperPodPyTorchJob);
    return { nodes: size.nodes, ranks: size.ranks, gpus: size.gpus };
  } catch {
    return { nodes: 0, ranks: null, gpus: 0 };
  }
}

/** Whose operator runs the jobs: ours when our CRD is installed, anyone else's (AWS's) otherwise. */
export async function detectClusterMode(kubeConfig: KubeConfig): Promise<ClusterMode> {
  const crd = await kubeConfig
    .makeApiClient(ApiextensionsV1Api)
    .readCustomResourceDefinition({ name: JOB_CRD_NAME });
  return crd.metadata?.annotations?.[CRD_OWNER_ANNOTATION] === CRD_OWNER ? "managed" : "console-only";
}

/** GPUs held and jobs running per node, from the pods that still hold their node. */
function usage(pods: V1Pod[]): Map<string, { gpus: number; jobs: Set<string> }> {
  const used = new Map<string, { gpus: number; jobs: Set<string> }>();
  const holding = pods.filter(
    (pod) => pod.spec?.nodeName && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed",
  );
  for (const pod of holding) {
    const node = pod.spec?.nodeName ?? "";
    const entry = used.get(node) ?? { gpus: 0, jobs: new Set<string>() };
    entry.gpus += podGpuRequest(pod);
    const job = pod.metadata?.labels?.[LABEL_JOB];
    if (job) entry.jobs.add(`${pod.metadata?.namespace}/${job}`);
    used.set(node, entry);
  }
  return used;
}

export function createConsoleView(backend: KubernetesBackend, mode: ClusterMode): ConsoleView {
  const podsOf = (namespace: string, job: string) =>
    backend.informers.pods
      .list()
      .filter((pod) => pod.metadata?.namespace === namespace && pod.metadata?.labels?.[LABEL_JOB] === job);

  const toConsoleJob = (object: JobObject): ConsoleJob => {
    const namespace = object.metadata?.namespace ?? "";
    const name = object.metadata?.name ?? "";
    const labels = object.metadata?.labels ?? {};
    const created = object.metadata?.creationTimestamp;
    return {
      namespace,
      name,
      uid: object.metadata?.uid ?? "",
      createdAt: created ? new Date(created).getTime() : 0,
      ...statusOf(object),
      ...sizeOf(object),
      queue: labels[KUEUE_QUEUE_LABEL] ?? null,
      priorityClass: labels[KUEUE_PRIORITY_LABEL] ?? null,
      pods: podsOf(namespace, name).map((pod) => {
        const view = toClusterPod(pod);
        return { name: view.name, node: view.node, phase: view.phase };
      }),
    };
  };

  return {
    mode,
    jobs: () => backend.rawJobs().map(toConsoleJob),
    job(ref) {
      const object = backend.informers.jobs.get(`${ref.namespace}/${ref.name}`);
      return object ? toConsoleJob(object) : null;
    },
    async nodes() {
      const used = usage(backend.informers.pods.list());
      return (await backend.listNodes()).map((node) => ({
        name: node.name,
        health: node.health,
        ready: node.ready,
        healthy: isNodeHealthy(node),
        ...(node.verdict ? { verdict: node.verdict } : {}),
        gpus: node.gpus,
        gpusUsed: used.get(node.name)?.gpus ?? 0,
        jobs: [...(used.get(node.name)?.jobs ?? [])].sort(),
      }));
    },
    events: (ref) => backend.listEvents(ref),
    logs: (ref, pod, tailLines) => backend.podLogs(ref, pod, tailLines),
    rankOutput: (ref, pod, localRank) => backend.rankOutput(ref, pod, { localRank, since: null }),
  };
}
