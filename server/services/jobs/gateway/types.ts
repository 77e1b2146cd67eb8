import type { ClusterEvent, ClusterNode, JobRef } from "@/server/cluster/types";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import type {
  FaultKind,
  HistoryClusterSeries,
  HistoryJobSeries,
  HistoryResponse,
  JobAction,
  JobPolicyState,
  LiveJob,
  PolicyLabel,
  WhyPendingResponse,
} from "@/server/domain/operator-api/contract";
import type { RankOutput } from "@/server/domain/operator-api/rank-output";
import type { RestartEventRow } from "@/server/store/restart-events/queries";

/**
 * Where the console reads a cluster from, whichever it is: the operator's live-state API (the local back
 * end, and Kubernetes where Rebound's operator runs), or the cluster itself in console-only mode (AWS's
 * operator: no per-rank live state, pods only). The console never talks to agents.
 */
export type SourceMode = "local" | "kubernetes" | "console-only";

export type JobDetail = {
  live: LiveJob;
  events: ClusterEvent[];
  /** Log rules of the job (for highlighting matches in logs). */
  logRules: Array<{ name: string; logPattern?: string }>;
  /**
   * The job's policy (issue 12): its spec.runPolicy, resourceVersion, the library policy applied, the shadow
   * with its latest verdicts, and whether new rules wait for the next restart. Null where the cluster's own
   * operator runs the job (console-only mode) or the operator is older than policies.
   */
  policy: JobPolicyView | null;
  /**
   * This run's restart rows as the operator read them for this answer; null where the source sends none
   * (console-only mode): the page reads them from the database then.
   */
  restarts: RestartEventRow[] | null;
};

export type JobPolicyView = JobPolicyState & { runPolicy: RunPolicy };

/** Replacing spec.runPolicy with a library version (or hand-written one) while the job is at `expectedVersion`. */
export type RunPolicyApply = {
  runPolicy: RunPolicy;
  expectedVersion: string;
  policy: PolicyLabel | null;
  /** The person asking, for the operator's audit log. */
  by: string;
};

/** Log rules watched without acting (null: no shadow), and the library version they come from. */
export type ShadowPolicySet = {
  rules: LogMonitoringRule[] | null;
  policy: PolicyLabel | null;
  by: string;
};

/** A read of the operator's embedded metrics history (epoch ms window). */
export type HistoryQuery =
  | { scope: "job"; ref: JobRef; series: HistoryJobSeries; start: number; end: number }
  | {
      scope: "cluster";
      /** "all": every namespace the console may list. */
      namespaces: string[] | "all";
      series: HistoryClusterSeries;
      start: number;
      end: number;
    };

export type ClusterSource = {
  readonly mode: SourceMode;
  jobs(): Promise<LiveJob[]>;
  job(ref: JobRef): Promise<JobDetail | null>;
  nodes(): Promise<ClusterNode[]>;
  logs(ref: JobRef, pod: string, tailLines: number): Promise<string>;
  /**
   * One rank's output since its attempt started, each line with when it arrived (for a dry-run on a
   * running rank); `pod` must be one of the job's (the caller resolves it from the job's page).
   */
  rankOutput(ref: JobRef, target: { pod: string; localRank: number }): Promise<RankOutput>;
  act(ref: JobRef, action: SourceAction): Promise<void>;
  /** Local back end only: plant a fault in a rank (crash, hang, nan, slow) or fail its node. */
  injectFault(ref: JobRef, fault: { kind: FaultKind; rank?: number; by?: string }): Promise<void>;
  /** `by`: the person asking, for the operator's audit log. */
  delete(ref: JobRef, by?: string): Promise<void>;
  /** Replaces spec.runPolicy; SourceError 409 when `expectedVersion` is no longer the job's. */
  applyRunPolicy(ref: JobRef, input: RunPolicyApply): Promise<{ resourceVersion: string }>;
  setShadowPolicy(ref: JobRef, input: ShadowPolicySet): Promise<void>;
  /**
   * The operator's embedded metrics history (charts without Prometheus). SourceError where there is none:
   * console-only mode (the cluster's own operator keeps no history for us), or a job it has no history of.
   */
  history(query: HistoryQuery): Promise<HistoryResponse>;
  /**
   * "Why is this job pending" from the operator's own admission; null where it holds none (Kueue's, an older
   * operator): the console answers from its snapshot then. Absent: the source has no operator.
   */
  whyPending?(ref: JobRef): Promise<WhyPendingResponse | null>;
};

export type SourceAction = JobAction;

export class SourceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
