import { isDeepStrictEqual } from "node:util";
import type { ClusterBackend, ClusterJob } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { Logger } from "@/server/log";
import type { AdmissionGate } from "@/server/operator/admission/types";
import { type AgentClient, createAgentClient } from "@/server/operator/agent-client";
import type { AgentTransport } from "@/server/operator/agent-transport";
import { createLiveState, type LiveState } from "@/server/operator/live-state";
import { createOperatorMetrics, type OperatorMetrics } from "@/server/operator/metrics";
import {
  DEFAULT_PRESENCE_CONFIG,
  type Presence,
  type PresenceConfig,
  silenceMsFor,
} from "@/server/operator/presence/presence";
import { createPresenceThread } from "@/server/operator/presence/thread";
import { createManualRequests, type ManualRequests } from "@/server/operator/requests";
import { createVerdictStore } from "@/server/operator/shadow/verdict-store";
import { createShadowWatcher, type ShadowWatcher } from "@/server/operator/shadow/watcher";
import { createJobRunStore, type JobRunStore } from "@/server/services/job-runs/store";
import { createRestartEventStore, type RestartEventStore } from "@/server/services/restart-events/store";
import { type ReboundState, withState } from "./job-state";
import { createLedger, type Ledger } from "./ledger";
import type { FailureClock, Observation } from "./observe";

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

/** The operator's wiring, shared by main.ts, the test harness and the benchmark. */
export function createOperatorDeps(opts: {
  backend: ClusterBackend;
  db: Db;
  log: Logger;
  config?: Partial<OperatorConfig>;
  transport?: AgentTransport;
  admission?: AdmissionGate | null;
}): OperatorDeps {
  // An injected transport records or shapes every agent exchange (the contract test); a watch stream would
  // bypass it, so with one the agents are polled unless push is asked for.
  const agentPush = opts.config?.agentPush ?? opts.transport === undefined;
  const config = { ...DEFAULT_OPERATOR_CONFIG, ...opts.config, agentPush };
  const metrics = createOperatorMetrics();
  // Every call to a pod's agent carries the credential the back end gave the pod (agent-credential.ts).
  const credentialFor = opts.backend.agentCredential?.bind(opts.backend);
  const presence = config.agentPush
    ? createPresenceThread({
        config: {
          ...DEFAULT_PRESENCE_CONFIG,
          silenceMs: silenceMsFor(opts.backend.kind),
          ...config.presence,
          connectTimeoutMs: config.agentTimeoutMs,
          unreachableMs: config.agentTimeoutMs,
        },
        log: opts.log.child({ component: "presence" }),
        metrics,
        credentialFor,
      })
    : null;
  return {
    backend: opts.backend,
    // A status call times out after the unreachable timeout itself: an agent that does not answer one call
    // is unreachable when it returns (detect.ts), so a stall is found within the timeout and one poll.
    agents: createAgentClient({
      timeoutMs: config.agentTimeoutMs,
      transport: opts.transport,
      credentialFor,
    }),
    db: opts.db,
    restartEvents: createRestartEventStore(opts.db),
    jobRuns: createJobRunStore(opts.db),
    metrics,
    ledger: createLedger(),
    live: createLiveState(),
    failures: new Map(),
    presence,
    requests: createManualRequests(),
    clock: Date.now,
    config,
    log: opts.log,
    admission: opts.admission ?? null,
    shadow: createShadowWatcher({
      backend: opts.backend,
      verdicts: createVerdictStore(opts.db),
      log: opts.log,
    }),
  };
}

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
