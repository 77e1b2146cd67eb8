import type { ClusterEvent, ClusterNode, JobRef } from "@/server/cluster/types";
import type { FaultKind, JobAction, LiveJob } from "@/server/domain/operator-api/contract";

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
};

export type ClusterSource = {
  readonly mode: SourceMode;
  jobs(): Promise<LiveJob[]>;
  job(ref: JobRef): Promise<JobDetail | null>;
  nodes(): Promise<ClusterNode[]>;
  logs(ref: JobRef, pod: string, tailLines: number): Promise<string>;
  act(ref: JobRef, action: SourceAction): Promise<void>;
  /** Local back end only: plant a fault in a rank (crash, hang, nan, slow) or fail its node. */
  injectFault(ref: JobRef, fault: { kind: FaultKind; rank?: number; by?: string }): Promise<void>;
  /** `by`: the person asking, for the operator's audit log. */
  delete(ref: JobRef, by?: string): Promise<void>;
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
