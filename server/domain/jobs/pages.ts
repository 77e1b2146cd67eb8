import type { z } from "zod";
import type { ScalingEventRow } from "@/server/domain/elastic/scaling-event";
import type {
  NodeAction,
  NodeMeaning,
  NodeSignalSource,
} from "@/server/domain/node-health/signal-table.schema";
import type { clusterEventSchema, LiveJob } from "@/server/domain/operator-api/contract";
import type {
  JobTotals,
  NodeView,
  PolicyLabelView,
  ShadowVerdictEntry,
  TimelineEntry,
  TopologyView,
} from "./view-model";

/**
 * What the console's job reads return (server/services/jobs): a row of the jobs list, a job's page, a node
 * of the cluster page. Plain, serialisable data, shared by the services that build it, the live streams that
 * diff it (server/domain/live) and the components that draw it.
 */

/** A Kubernetes event of the job, as the operator API sends it. */
export type JobEvent = z.infer<typeof clusterEventSchema>;

export type JobRow = {
  namespace: string;
  name: string;
  team: string | null;
  status: string;
  phase: string;
  priorityClass: string | null;
  gpus: number;
  ranksHealthy: number;
  ranksTotal: number;
  restarts: { plr: number; podReplacement: number; jlr: number };
  createdAt: number;
  /** Why it is not running (view-model-summary.ts: the same as the job page's header); null while it runs. */
  reason?: string | null;
  /** Epoch ms a crash-loop back-off ends, while the job waits one out; null otherwise. */
  backOffUntil?: number | null;
};

export type JobPage = {
  namespace: string;
  name: string;
  team: string | null;
  teamId: string | null;
  status: string;
  phase: string;
  priorityClass: string | null;
  gpus: number;
  restartCount: number;
  /** What the jobs list shows of this job too, from the same source (view-model-summary.ts). */
  reason: string | null;
  backOffUntil: number | null;
  ranksHealthy: number;
  ranksTotal: number;
  restarts: { plr: number; podReplacement: number; jlr: number };
  recovering: string | null;
  createdAt: number;
  topology: TopologyView;
  timeline: TimelineEntry[];
  totals: JobTotals;
  events: JobEvent[];
  logRules: Array<{ name: string; logPattern?: string }>;
  updatedAt: number;
  /** The job object's version, for an apply's expectedVersion; null where the source has none. */
  resourceVersion: string | null;
  /** The library policy the job's runPolicy came from (null: its own, or unknown). */
  appliedPolicy: PolicyLabelView | null;
  /** A shadow rule set watched without acting, with its latest verdicts (newest last, at most 50). */
  shadow: { policy: PolicyLabelView | null; rules: unknown[]; verdicts: ShadowVerdictEntry[] } | null;
  /** The shadow's verdicts of this run, the timeline's entries of their own kind (also once it is removed). */
  verdicts: ShadowVerdictEntry[];
  /** New rules were applied that the running agents take at the next restart. */
  pendingRestart: boolean;
  /** An elastic job's target vs actual replicas and bounds (null: not elastic, or an operator without it). */
  elastic: NonNullable<LiveJob["elastic"]> | null;
  /** This run's scalings, oldest first (elastic jobs; empty otherwise). */
  scaling: ScalingEventRow[];
};

/** What the node-signal table says of a node (its most severe signal), where the operator judged it. */
export type NodeVerdictRow = {
  meaning: NodeMeaning;
  action: NodeAction;
  source: NodeSignalSource | null;
  /** "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 …". */
  reason: string | null;
};

export type ClusterNodeRow = NodeView & { jobs: string[]; verdict: NodeVerdictRow | null };
