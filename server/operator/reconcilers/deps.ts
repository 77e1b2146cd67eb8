import type { ClusterBackend, ClusterJob } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { Logger } from "@/server/log";
import type { AgentClient } from "@/server/operator/agent-client";
import type { LiveState } from "@/server/operator/live-state";
import type { OperatorMetrics } from "@/server/operator/metrics";
import type { ReboundState } from "./job-state";
import type { FailureClock, Observation } from "./observe";

export type OperatorConfig = {
  pollMs: number;
  agentTimeoutMs: number;
  /** A new pod's agent may take this long to answer before it counts as unreachable. */
  podStartGraceMs: number;
  /** How long /stop may take before the agent is stopped again. */
  stopTimeoutSeconds: number;
};

export type OperatorDeps = {
  backend: ClusterBackend;
  agents: AgentClient;
  db: Db;
  metrics: OperatorMetrics;
  live: LiveState;
  failures: FailureClock;
  clock: () => number;
  config: OperatorConfig;
  log: Logger;
};

/** One reconcile's working set: steps read `obs` and change `status`/`state`, which are written once at the end. */
export type JobContext = {
  deps: OperatorDeps;
  job: ClusterJob;
  obs: Observation;
  status: JobStatus;
  state: ReboundState;
  now: number;
  ranksPerNode: number;
};

export function ranksPerNode(job: ClusterJob): number {
  const value = Number.parseInt(job.job.spec.nprocPerNode, 10);
  return Number.isInteger(value) && value > 0 ? value : 1;
}

export function labels(ctx: JobContext) {
  return { namespace: ctx.job.ref.namespace, job_name: ctx.job.ref.name };
}

export async function event(ctx: JobContext, type: "Normal" | "Warning", reason: string, message: string) {
  await ctx.deps.backend.recordEvent(ctx.job.ref, { type, reason, message });
}
