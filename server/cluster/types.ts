import type { HyperPodPyTorchJob, JobStatus } from "@/server/domain/job-spec/job-spec.schema";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import type { NodeVerdict } from "@/server/domain/node-health/evaluate";
import type { RankOutput, RankOutputRead } from "@/server/domain/operator-api/rank-output";

/**
 * What the operator and the console need from a cluster, whichever back end provides it (two
 * cluster back ends, one interface). The operator never learns which one it drives.
 */
export type JobRef = { namespace: string; name: string };

export const jobKey = (ref: JobRef): string => `${ref.namespace}/${ref.name}`;

export function parseJobKey(key: string): JobRef {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export type ClusterJob = {
  ref: JobRef;
  uid: string;
  generation: number;
  createdAt: Date;
  /** The validated object as submitted. */
  object: HyperPodPyTorchJob;
  /** As last written by the operator (empty for a new job). */
  status: JobStatus;
  /** Deletion was requested; the operator cleans up, then calls finalizeDeletion. */
  deleting: boolean;
  /**
   * The version of the job a client edits its spec against, for optimistic concurrency: Kubernetes'
   * metadata.generation (it moves with the spec; status writes and annotations leave it alone, so an edit
   * loaded a moment ago is not stale at once; the patch itself still carries the resourceVersion just read),
   * the local back end's generation (bumped by every change of spec or annotations). Absent where a caller
   * built the job.
   */
  resourceVersion?: string;
};

/**
 * A change of the job object made under optimistic concurrency (issue 12): spec.runPolicy replaced (when
 * given) and annotations set (a string) or removed (null), only while the object is still at
 * `expectedVersion` (null: whatever its version).
 */
export type JobObjectUpdate = {
  runPolicy?: RunPolicy;
  annotations: Record<string, string | null>;
  expectedVersion: string | null;
};

export type JobObjectUpdateResult =
  | { ok: true; resourceVersion: string }
  | { ok: false; reason: "not-found" }
  | { ok: false; reason: "conflict"; expected: string; current: string };

export type NodeHealth =
  | "Schedulable"
  | "Unschedulable"
  | "UnschedulablePendingReplacement"
  | "UnschedulablePendingReboot";

export type ClusterNode = {
  name: string;
  /** `sagemaker.amazonaws.com/node-health-status`; anything but Schedulable is a node fault. */
  health: NodeHealth | string;
  ready: boolean;
  gpus: number;
  /** `node.kubernetes.io/instance-type` (a Kueue ResourceFlavor under task governance), when the node has one. */
  instanceType?: string;
  /** Epoch ms of the last change of health or readiness. */
  changedAt: number;
  /**
   * The node judged against the node-signal table (server/domain/node-health), where the back end reads
   * more than the HyperPod label and Ready (Kubernetes); it then decides health in their place.
   */
  verdict?: NodeVerdict;
};

/** A node new pods may go to (placement, capacity): nothing against it. */
export const isNodeHealthy = (node: ClusterNode): boolean =>
  node.verdict ? node.verdict.action === "none" : node.ready && node.health === "Schedulable";

/**
 * From when the job pods on the node are to be replaced (a node fault); null while they may stay. Without
 * a verdict: any health but Schedulable, or not Ready, since the node's last change.
 */
export function nodeReplaceAt(node: ClusterNode): number | null {
  if (node.verdict) return node.verdict.replaceAt;
  return isNodeHealthy(node) ? null : node.changedAt;
}

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export type ClusterPod = {
  name: string;
  namespace: string;
  job: string;
  replicaSpec: string;
  index: number;
  node: string | null;
  phase: PodPhase;
  /** Where the pod's agent listens (annotation in tests and the local back end, else pod IP:8080). */
  agentUrl: string | null;
  /** The pod's own address (its IP; 127.0.0.1 for local pods), for `/start`'s rankIps; absent until known. */
  ip?: string | null;
  createdAt: number;
  /** Epoch ms when the pod stopped (phase Failed/Succeeded), for fault times. */
  finishedAt: number | null;
};

export type ClusterEvent = {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  /** Epoch ms of the (last) occurrence. */
  at: number;
  /** Repeats collapsed into this one (Kubernetes' count) and the first one's time, where known. */
  count?: number;
  firstAt?: number;
};

/**
 * The back end places the pod (the local back end is its own scheduler; Kubernetes uses node affinity):
 * never on `avoidNodes`, on `preferNode` when it fits. Returns null when no node can take it now.
 */
export type CreatePodInput = {
  job: ClusterJob;
  replicaSpec: string;
  index: number;
  gpus: number;
  avoidNodes: readonly string[];
  preferNode: string | null;
  /** Only nodes of this instance type (the flavor the job was admitted on); null or absent: any node. */
  instanceType?: string | null;
};

export type ClusterBackend = {
  readonly kind: "local" | "kubernetes";
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Called with the job's ref whenever a job, one of its pods, or a node changes. */
  onChange(listener: (ref: JobRef | null) => void): () => void;

  listJobs(): Promise<ClusterJob[]>;
  /** The jobs' refs alone, where that is much cheaper than listJobs (the local back end's table). */
  listJobRefs?(): Promise<JobRef[]>;
  getJob(ref: JobRef): Promise<ClusterJob | null>;
  updateJobStatus(ref: JobRef, status: JobStatus): Promise<void>;
  /** Sets `spec.runPolicy.suspend` (the console's suspend/resume); false when the job does not exist. */
  setSuspended(ref: JobRef, suspend: boolean): Promise<boolean>;
  /** Replaces spec.runPolicy and/or sets annotations, refused as a conflict when the job moved on. */
  updateJobObject(ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult>;
  /** Asks for the job to be deleted (ttlSecondsAfterFinished, the console's delete). */
  requestDeletion(ref: JobRef): Promise<void>;
  /** Removes a job whose deletion was requested, after its pods are gone. */
  finalizeDeletion(ref: JobRef): Promise<void>;

  /** The job's pods; read-only: a back end may answer the same array while none of them changed. */
  listPods(ref: JobRef): Promise<readonly ClusterPod[]>;
  createPod(input: CreatePodInput): Promise<ClusterPod | null>;
  deletePod(ref: JobRef, podName: string): Promise<void>;
  /** The last `tailLines` lines of the pod's output (its agent's, which carries every rank's lines). */
  podLogs(ref: JobRef, podName: string, tailLines: number): Promise<string>;
  /**
   * One rank's output since its attempt started, each line with when it arrived (rank-output.ts in
   * server/domain/operator-api), for a dry-run on a running rank. Absent: the back end cannot tell.
   */
  rankOutput?(ref: JobRef, podName: string, read: RankOutputRead): Promise<RankOutput>;

  /** Every node; read-only: a back end may answer the same array while no node changed. */
  listNodes(): Promise<readonly ClusterNode[]>;

  recordEvent(ref: JobRef, event: Omit<ClusterEvent, "at">): Promise<void>;
  listEvents(ref: JobRef): Promise<ClusterEvent[]>;

  /** Rendezvous for an attempt: rank 0's address and a port for torch.distributed. */
  rendezvous(rank0: ClusterPod): Promise<{ addr: string; port: string }>;
  /** Called before a restart begins (the local back end clears planted trainer faults). */
  beforeRestart?(ref: JobRef): void;
  /**
   * Pods of the job that were stopped on purpose with the previous operator (the local back end's clean
   * stop) and not created again since: to resume, not faults.
   */
  stoppedPods?(ref: JobRef): string[];
  /**
   * The credential the pod whose agent listens at `agentUrl` was given (server/cluster/agent-credential.ts),
   * sent on every call to it; null or absent: none.
   */
  agentCredential?(agentUrl: string): string | null;
};
