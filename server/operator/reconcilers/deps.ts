import { isDeepStrictEqual } from "node:util";
import type { ClusterBackend, ClusterJob } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { Logger } from "@/server/log";
import type { AdmissionGate } from "@/server/operator/admission/types";
import type { AgentClient } from "@/server/operator/agent-client";
import type { LiveState } from "@/server/operator/live-state";
import type { OperatorMetrics } from "@/server/operator/metrics";
import type { Presence, PresenceConfig } from "@/server/operator/presence/presence";
import type { ManualRequests } from "@/server/operator/requests";
import type { ShadowWatcher } from "@/server/operator/shadow/watcher";
import type { JobRunStore } from "@/server/store/job-runs/store";
import type { RestartEventStore } from "@/server/store/restart-events/store";
import { type ReboundState, withState } from "./job-state";
import type { Ledger } from "./ledger";
import type { FailureClock, Observation } from "./observe";

/**
 * What the reconcilers run with and their helpers. The operator's wiring, which builds OperatorDeps from a
 * back end, the database and the configuration, is server/operator/wiring.ts.
 */

export type OperatorConfig = {
  pollMs: number;
  agentTimeoutMs: number;
  /** A new pod's agent may take this long to answer before it counts as unreachable. */
  podStartGraceMs: number;
  /** How long /stop may take before the agent is stopped again. */
  stopTimeoutSeconds: number;
  /** Watch agents that push (server/operator/presence); off: every agent is polled as before. */
  agentPush: boolean;
  /** Heartbeat asked of pushing agents, silence threshold, sweep (server/operator/presence/README.md). */
  presence?: Partial<Omit<PresenceConfig, "connectTimeoutMs" | "unreachableMs">>;
};

export type OperatorDeps = {
  backend: ClusterBackend;
  agents: AgentClient;
  db: Db;
  /** The restart timeline (Postgres; an in-memory store in unit tests). */
  restartEvents: RestartEventStore;
  /** Runs of each job name (absent in unit tests: nothing recorded). */
  jobRuns?: JobRunStore;
  metrics: OperatorMetrics;
  /** Events and metrics this process already sent or observed (kept beside the metrics' registry). */
  ledger: Ledger;
  live: LiveState;
  failures: FailureClock;
  /** What pushing agents said (absent or null: every agent is polled). */
  presence?: Presence | null;
  requests: ManualRequests;
  clock: () => number;
  config: OperatorConfig;
  log: Logger;
  /** Task governance (server/operator/admission); absent: every job runs as without task governance. */
  admission?: AdmissionGate | null;
  /** Shadow rule sets watched without acting (server/operator/shadow); absent in unit tests. */
  shadow?: ShadowWatcher;
};

export const DEFAULT_OPERATOR_CONFIG: OperatorConfig = {
  pollMs: 100,
  agentTimeoutMs: 3000,
  podStartGraceMs: 30_000,
  stopTimeoutSeconds: 10,
  agentPush: true,
};

/**
 * One reconcile's working set: steps read `obs` and change `status`/`state`, which are written at the end,
 * and before that wherever a decision must be on record before its first side effect (saveStatus).
 */
export type JobContext = {
  deps: OperatorDeps;
  job: ClusterJob;
  obs: Observation;
  status: JobStatus;
  state: ReboundState;
  /** The status as last written (or read): saveStatus writes only a change. */
  saved: JobStatus;
  now: number;
  ranksPerNode: number;
};

export { ranksPerNode } from "./ranks";

export function labels(ctx: JobContext) {
  return { namespace: ctx.job.ref.namespace, job_name: ctx.job.ref.name };
}

export async function event(ctx: JobContext, type: "Normal" | "Warning", reason: string, message: string) {
  await ctx.deps.backend.recordEvent(ctx.job.ref, { type, reason, message });
}

/** Writes status and state unless they are what was last written (compared as values: the API server sorts keys). */
export async function saveStatus(ctx: JobContext): Promise<JobStatus> {
  const next = withState(ctx.status, ctx.state);
  const plain = JSON.parse(JSON.stringify(next)) as JobStatus;
  if (isDeepStrictEqual(plain, ctx.saved)) return next;
  await ctx.deps.backend.updateJobStatus(ctx.job.ref, next);
  ctx.saved = plain;
  return next;
}
