/**
 * Task governance, as HyperPod task governance
 * (docs/hyperpod-compatibility.md, "Task governance configuration") and Kueue model it: per-team compute
 * quotas in one cohort, priority classes, fair share, borrowing and reclaiming. Pure data: the console
 * (what-if, why pending), the operator's local admission and the Kueue sync all read these shapes.
 *
 * Quantities are numbers in each resource's base unit: GPUs and other devices as counts, `cpu` in cores,
 * `memory` in bytes. A flavor is an instance type (`node.kubernetes.io/instance-type`, e.g. ml.g5.12xlarge);
 * nodes that carry none, and the local back end's virtual nodes, are flavor `DEFAULT_FLAVOR`.
 */

export const DEFAULT_FLAVOR = "default";
export const GPU = "nvidia.com/gpu";

export type ResourceName = string;
export type Flavor = string;
/** resource → amount, e.g. { "nvidia.com/gpu": 8, cpu: 96 }. A resource not listed is 0. */
export type Quantities = Readonly<Record<ResourceName, number>>;
/** flavor → resource → amount. */
export type FlavorQuantities = Readonly<Record<Flavor, Quantities>>;

/** HyperPod `ResourceSharingConfig.Strategy`. */
export type SharingStrategy = "Lend" | "DontLend" | "LendAndBorrow";
/** HyperPod `PreemptTeamTasks`. */
export type PreemptTeamTasks = "Never" | "LowerPriority";

/** Kueue ClusterQueue `preemption.reclaimWithinCohort`. */
export type ReclaimWithinCohort = "Never" | "LowerPriority" | "Any";
/** Kueue ClusterQueue `preemption.withinClusterQueue`. */
export type WithinClusterQueue = "Never" | "LowerPriority" | "LowerOrNewerEqualPriority";
/** Kueue ClusterQueue `queueingStrategy`. */
export type QueueingStrategy = "StrictFIFO" | "BestEffortFIFO";

/**
 * Kueue's own ClusterQueue knobs, as advanced team settings (kueue-settings.ts resolves the defaults, which
 * are HyperPod's: reclaim `Any`, no borrowing within the cohort, everything lendable, BestEffortFIFO, and the
 * within-queue policy from `PreemptTeamTasks`).
 */
export type KueueSettings = {
  reclaimWithinCohort: ReclaimWithinCohort;
  /** `LowerPriority`: while borrowing, preempt lower-priority workloads of other teams that borrow. */
  borrowWithinCohort: { policy: "Never" | "LowerPriority"; maxPriorityThreshold: number | null };
  /** GPUs (`nvidia.com/gpu`) of each flavor the team lends at most; null: all of its guarantee. */
  lendingLimit: number | null;
  queueingStrategy: QueueingStrategy;
  /** null: from `PreemptTeamTasks` (LowerPriority or Never). */
  withinClusterQueue: WithinClusterQueue | null;
};

/** One team's compute allocation (HyperPod `ComputeQuota`, Kueue ClusterQueue). */
export type TeamQuota = {
  team: string;
  /** `ActivationState`: a disabled quota admits nothing new (Kueue `stopPolicy: Hold`); admitted work stays. */
  active: boolean;
  /** Guaranteed (nominal) quota per flavor and resource. */
  guaranteed: FlavorQuantities;
  strategy: SharingStrategy;
  /** Percent of the guaranteed amount the team may borrow (≥ 1, no upper cap), when `absoluteBorrowLimit` has no entry. */
  borrowLimitPercent: number;
  /** Absolute caps on borrowing per flavor and resource; an entry here wins over the percent. */
  absoluteBorrowLimit: FlavorQuantities;
  preemptTeamTasks: PreemptTeamTasks;
  /** 0..100; used only when fair share is enabled. */
  fairShareWeight: number;
  /** Advanced Kueue settings; absent or partial: the defaults (kueue-settings.ts). */
  kueue?: Partial<KueueSettings>;
};

export type PriorityClassSpec = { name: string; weight: number };

/** HyperPod `ClusterSchedulerConfig`. */
export type SchedulerSettings = {
  priorityClasses: readonly PriorityClassSpec[];
  /** true: task ranking by priority class; false: first come, first served. */
  taskRanking: boolean;
  /** `FairShare`: borrowing of idle compute by team weights (true) or first come, first served (false). */
  fairShare: boolean;
  /** `IdleResourceSharing`: capacity no team is guaranteed can be borrowed. */
  idleResourceSharing: boolean;
};

export type GovernanceConfig = {
  teams: readonly TeamQuota[];
  scheduler: SchedulerSettings;
};

/** A job as governance sees it (a Kueue Workload): what all its pods (replicas + spares) request. */
export type Workload = {
  /** `<namespace>/<name>` of the job. */
  key: string;
  team: string;
  /** `kueue.x-k8s.io/priority-class` without the `-priority` suffix; null: none (weight 0). */
  priorityClass: string | null;
  /** Epoch ms the job was created (arrival order). */
  createdAt: number;
  /** Total request of the job; one flavor is assigned to the whole job. */
  request: Quantities;
  /** Only these flavors fit the job (a node selector on instance type); null: any flavor. */
  flavors: readonly Flavor[] | null;
  /** Its pod sets' names (replica specs), which Kueue's pending messages name; absent: not known. */
  podSets?: readonly string[];
};

/** A workload that holds capacity now. */
export type AdmittedWorkload = Workload & {
  flavor: Flavor;
  /** Epoch ms it was admitted. */
  admittedAt: number;
};

/** Everything a decision needs; built by the caller from Postgres, the cluster and the jobs. */
export type GovernanceSnapshot = {
  config: GovernanceConfig;
  /** Allocatable capacity of healthy, schedulable nodes per flavor. */
  capacity: FlavorQuantities;
  admitted: readonly AdmittedWorkload[];
  pending: readonly Workload[];
  now: number;
};

/** Per team, flavor and resource (all in base units). */
export type TeamCapacity = {
  team: string;
  flavor: Flavor;
  resource: ResourceName;
  guaranteed: number;
  /** In use by the team's admitted workloads. */
  used: number;
  /** Of `used`, the part above `guaranteed` (taken from others or from unallocated capacity). */
  borrowed: number;
  /** Of `guaranteed`, the part other teams use now. */
  lent: number;
  /** The most the team may borrow beyond its guarantee (its limit, before availability). */
  borrowLimit: number;
  /** What it could still take now: its unused guarantee plus what it may borrow and the cohort has free. */
  available: number;
  /** What it offers the cohort (its guarantee when it lends, 0 for DontLend). */
  lendable: number;
};

/** Kueue's reasons, so a Rebound decision and a Kueue one read the same. */
export type PreemptionReason =
  | "InClusterQueue"
  | "InCohortReclamation"
  | "InCohortFairSharing"
  | "InCohortReclaimWhileBorrowing";
export type PendingReason =
  | "QuotaInactive" // the team's quota is Disabled
  | "NoQuota" // the team has no quota for what the job asks (and cannot borrow it)
  | "InsufficientQuota" // does not fit now; waits for capacity
  | "WaitingBehind" // fits, but workloads ahead of it in order are waiting for the same capacity
  | "ExceedsCapacity" // could never fit: bigger than the team's guarantee + borrow limit, or than the cluster
  | "UnknownPriorityClass"; // names a priority class the scheduler config does not define

export type Admission = {
  workload: Workload;
  flavor: Flavor;
  /** Part of the request above the team's unused guarantee, per resource. */
  borrowing: Quantities;
  /** Workloads this admission preempts (they must stop first). */
  preempts: readonly string[];
  message: string;
};

export type Preemption = {
  victim: AdmittedWorkload;
  /** The key of the workload it makes room for. */
  by: string;
  reason: PreemptionReason;
  /** Kueue's wording, e.g. "Preempted to accommodate a workload (…) due to reclamation within the cohort". */
  message: string;
};

export type Shortfall = {
  flavor: Flavor;
  resource: ResourceName;
  need: number;
  available: number;
  missing: number;
};

export type PendingDecision = {
  workload: Workload;
  /** 1-based position in its team's queue. */
  position: number;
  reason: PendingReason;
  message: string;
};

/** One admission cycle: what to admit now, what to preempt for it, and why the rest wait. */
export type AdmissionDecision = {
  admit: readonly Admission[];
  preempt: readonly Preemption[];
  pending: readonly PendingDecision[];
};

/** "Why is my job pending", in numbers. */
export type WhyPending = {
  key: string;
  position: number;
  reason: PendingReason;
  /** What is missing, per flavor and resource. */
  shortfall: readonly Shortfall[];
  /** Workloads ahead of it in its team's queue (keys, in order). */
  ahead: readonly string[];
  /** Concrete ways it would run ("raise llm-research's nvidia.com/gpu quota by 4", "job X finishes"). */
  wouldRun: readonly string[];
  /** One paragraph in words, for the console. */
  text: string;
};

/** What a quota or scheduler change would do, computed with the same admission logic (no peer has it). */
export type WhatIf = {
  preempted: readonly Preemption[];
  admitted: readonly Admission[];
};
