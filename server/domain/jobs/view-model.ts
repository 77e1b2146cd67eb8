/**
 * What the console's job views receive (from the tRPC jobs router, over SSE for live updates): plain,
 * serialisable data, shared by the server that builds it and the components that draw it.
 */

/** A rank's health as the console colours it. */
export const RANK_HEALTH = [
  "healthy",
  "waiting",
  "slow",
  "hanging",
  "faulted",
  "restarting",
  "straggler",
  "suspect",
  "stalled",
  /** The job has ended (Succeeded, or Failed and not this rank's fault): the rank no longer runs. */
  "finished",
] as const;
export type RankHealth = (typeof RANK_HEALTH)[number];

export type RankView = {
  rank: number;
  localRank: number;
  pod: string;
  node: string | null;
  health: RankHealth;
  /** The agent's run state for this rank: starting, running, exited, crashed, stopped. */
  state: string;
  pid: number | null;
  step: number | null;
  loss: number | null;
  throughput: number | null;
  lastLine: string | null;
  /** Epoch ms of the last line. */
  lastLineAt: number | null;
  restarts: number;
  /** Log-rule name → WAITING | HEALTHY | SLOW | HANGING | FAULTED. */
  ruleStates: Record<string, string>;
  /** Throughput (or step) well below its peers' (see server/domain/console/straggler.ts). */
  straggler: boolean;
  /** The agent's `suspect`: printed, then silent past the rules' shortest recurring window (not a fault). */
  suspect?: boolean;
  /** The agent's `log_watched`: this rank's rules can fault the job (local rank 0 unless opted in). */
  logWatched?: boolean;
  /** Epoch ms of the rank's last progress line (the agent's `last_progress_at`); null before one. */
  lastProgressAt?: number | null;
  /** The rank's usual ms between progress lines (the agent's `progress_interval_ms`); null until known. */
  progressIntervalMs?: number | null;
};

/** A pod as the job page's topology draws it (the operator's own view of a pod is its ObservedPod). */
export type PodTile = {
  name: string;
  node: string | null;
  phase: string;
  agentState: string | null;
  /** Global ranks on this pod, in local-rank order. */
  ranks: number[];
};

export type NodeView = {
  name: string;
  health: string;
  ready: boolean;
  healthy: boolean;
  gpus: number;
  gpusUsed: number;
  pods: string[];
};

export type TopologyView = {
  nodes: NodeView[];
  pods: PodTile[];
  ranks: RankView[];
  /** Set when some pod's agent lists no ranks (hyperpodrun): its ranks show the agent's state only. */
  note?: string;
};

export type RestartAction = "PLR" | "POD_REPLACEMENT" | "JLR" | "FAIL";

export type TimelineEntry = {
  id: string;
  reason: string;
  message: string;
  action: RestartAction;
  outcome: "pending" | "recovered" | "failed";
  /** Ranks that failed; empty with pods: the pods, their ranks not known; empty with neither: the job. */
  ranks: number[];
  pods: string[];
  node: string | null;
  faultAt: number;
  detectedAt: number;
  recoveredAt: number | null;
  /** detectedAt − faultAt */
  detectionMs: number;
  /** recoveredAt − detectedAt − waitMs: recovering, not waiting (null while pending or when it failed) */
  recoveryMs: number | null;
  /** Of detected → recovered, the ms spent waiting out the crash-loop back-off (0 or absent: none). */
  waitMs?: number;
  /** Identical failures in a row this entry stands for (a crash loop folds into one row); absent: 1. */
  count?: number;
  /** The policy the recovery ran under (`<team>/<name> v<N>`); null: the job's own runPolicy. */
  policy?: string | null;
  /**
   * Training progress around the fault (server/domain/goodput), epoch ms: the job's last step before it
   * and when, the step training restarted from, when progress was back. Null or absent: not recorded.
   */
  progressStep?: number | null;
  progressAt?: number | null;
  resumeStep?: number | null;
  resumedAt?: number | null;
};

/**
 * What a shadow rule set would have done (issue 12), a timeline entry of its own kind: nothing was
 * restarted. `message`: "would have restarted rank 3 in place: rule hang HANGING at 12:01:05Z".
 */
export type ShadowVerdictEntry = {
  id: string;
  /** Epoch ms. */
  at: number;
  pod: string;
  rank: number | null;
  rule: string;
  state: string;
  reason: string;
  line: string | null;
  wouldAction: string;
  message: string;
  /** The shadow's library version, "llm-policy v3"; null for rules attached without one. */
  policy: string | null;
};

/** A library policy as a job names it. */
export type PolicyLabelView = { id: string; name: string; version: number; team?: string };

export type JobTotals = {
  /** Failures: each entry counts as many as it stands for (`count`). */
  faults: number;
  /** Mean time to recover (fault → recovered, less back-off waits) over recovered faults, ms; null with none. */
  mttrMs: number | null;
  /** Time spent waiting out crash-loop back-offs (kept out of MTTR), ms; absent: none recorded. */
  waitMs?: number;
  /**
   * Time lost to faults over the job's life, ms (server/domain/goodput): last progress → progress back,
   * or fault → recovered for faults without progress facts; overlaps counted once.
   */
  downtimeMs: number;
  /** 1 − downtime / time since the job started; null before it started. */
  goodput: number | null;
  /** Steps redone after restarts (server/domain/goodput), over the faults that know theirs. */
  lostSteps?: number;
  /** progress | mixed | control-plane | none: how downtime was measured (goodput's GoodputBasis). */
  basis?: "progress" | "mixed" | "control-plane" | "none";
  /** Faults measured by control-plane time only (no progress recorded). */
  controlPlaneFaults?: number;
};
