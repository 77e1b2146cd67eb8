// Recovery-policy types. Field names follow the HyperPodPyTorchJob CRD
// (docs/hyperpod-compatibility.md, "The job resource") so that `spec.runPolicy` and `status` of a job can be
// passed in as they are.

/** `spec.runPolicy.restartPolicy`. */
export type RestartPolicyInput = {
  evalPeriodSeconds: number;
  numRestartBeforeFullJobRestart?: number;
  maxFullJobRestarts?: number;
  maxNumRepeatOffendersToAvoid?: number;
};

/** The part of `spec.runPolicy` that recovery and deadlines read. */
export type RunPolicyInput = {
  jobMaxRetryCount?: number;
  restartPolicy?: RestartPolicyInput;
  startupDeadlineSeconds?: number;
  faultDeadlineSeconds?: number;
  activeDeadlineSeconds?: number;
};

/** `status.restartStatus`: counters of the restartPolicy window. */
export type RestartStatus = {
  /** Epoch seconds at which the current counting window begins (see window.ts); 0 when unbounded. */
  currentEvalPeriod: number;
  /** Full job restarts over the job's life. */
  fullJobRestartCount: number;
  /** Standard restarts (PLR + pod replacement) in the window since the last full job restart. */
  restartCount: number;
};

/** `status.latestFaultyPodInstanceList`: faulty pods/nodes of the latest restart. */
export type LatestFaultyPodInstanceList = {
  restartType: "PLR" | "JLR";
  faultyInstanceIdList: string[];
  faultyPodList: string[];
  faultyRankList: string[];
};

/** The part of the job's `status` that recovery reads. */
export type RecoveryStatusInput = {
  restartCount?: number;
  restartStatus?: RestartStatus;
};

type FaultBase = {
  /** Epoch ms at which the fault happened (agent transition time, pod/node change time). */
  at: number;
  pods: string[];
  /** Global ranks that failed; empty when the agent named none (hyperpodrun's log rules): the pods are the scope. */
  ranks: number[];
  /** Node that hosted the faulty pods, when known. A fault covers the pods of at most one node. */
  node?: string;
  /** Reason as surfaced to users: "WorkerCrash", "LogHang_<rule>", "NodeFault", … */
  reason: string;
};

export type Fault =
  /** The agent reported that a worker process exited. */
  | (FaultBase & { kind: "WorkerCrash" })
  /** A log rule saw no matching line in time. */
  | (FaultBase & { kind: "LogHang"; rule: string })
  /** A log rule's metric crossed its threshold for enough data points. */
  | (FaultBase & { kind: "LogSlow"; rule: string })
  /** A `faultOnMatch` log rule matched. */
  | (FaultBase & { kind: "LogFault"; rule: string })
  /** The agent did not answer within the timeout, or answered something we could not parse. */
  | (FaultBase & { kind: "AgentUnreachable"; cause: "timeout" | "invalid-response" })
  /** The pod (or its agent process) disappeared, was evicted or failed. */
  | (FaultBase & { kind: "PodGone" })
  /**
   * The node is unhealthy: health label other than Schedulable, NotReady, or another node signal
   * (server/domain/node-health), whose source and reason `detail` gives.
   */
  | (FaultBase & { kind: "NodeFault"; detail?: string });

export type FaultKind = Fault["kind"];

/** One restart performed for the job, oldest first or in any order. */
export type RestartRecord = {
  /** Epoch ms at which the restart was decided. */
  at: number;
  type: "PLR" | "POD_REPLACEMENT" | "JLR";
  /** Faulty nodes that caused this restart. */
  nodes: string[];
  /** Faulty pods that caused this restart. */
  pods: string[];
};

/** What the cluster looks like to the operator when it decides. */
export type ClusterView = {
  /** Every node that is healthy now (health label Schedulable and Ready); a fault's node not listed is unhealthy. */
  healthyNodes: string[];
  /** Healthy nodes reserved as spares for this job (e.g. Kueue spares); preferred for replacement pods. */
  spareNodes: string[];
  /** Other healthy nodes with room for one more pod of this job. */
  freeNodes: string[];
};

/** Status fields to write with the decision. */
export type RecoveryStatusWrite = {
  restartStatus: RestartStatus;
  /** null: leave `status.latestFaultyPodInstanceList` as it is (FAIL restarts nothing). */
  latestFaultyPodInstanceList: LatestFaultyPodInstanceList | null;
  /** New `status.restartCount`: restarts of any kind over the job's life. */
  restartCount: number;
  /** Entry to append to the restart history; null when nothing is restarted. */
  record: RestartRecord | null;
};

export type RecoveryAction =
  /** In-place process-level restart of every rank; no pod is restarted. */
  | { action: "PLR" }
  /**
   * Recreate only `pods` (the faulty node's pods) on one healthy node, a spare when `useSpare` is set, never on
   * `avoidNodes`; then PLR for the other ranks. `awaitingCapacity`: no node can take them now, so they stay
   * Pending until one frees up (faultDeadlineSeconds bounds the wait).
   */
  | {
      action: "POD_REPLACEMENT";
      pods: string[];
      ranks: number[];
      avoidNodes: string[];
      useSpare: string | null;
      awaitingCapacity: boolean;
    }
  /** Full job restart: every pod is deleted and recreated away from `avoidNodes`. */
  | { action: "JLR"; avoidNodes: string[] }
  /** The job fails; `reason` names the limit that was hit. */
  | { action: "FAIL"; limit: "jobMaxRetryCount" | "maxFullJobRestarts" | "CrashLoop"; reason: string };

export type RecoveryDecision = RecoveryAction & RecoveryStatusWrite;
