/**
 * The operator's wiring: the one place that builds what the reconcilers run with (OperatorDeps,
 * reconcilers/deps.ts) from a cluster back end, the database, a logger and the configuration. main.ts
 * runs it with the process's environment; the test operators (testing/local-operator.ts,
 * server/cluster/kubernetes/testing/kube-operator.ts) and the benchmarks run it with theirs.
 */
import type { ClusterBackend } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { createJobRunStore } from "@/server/store/job-runs/store";
import { createRestartEventStore } from "@/server/store/restart-events/store";
import type { AdmissionGate } from "./admission/types";
import { createAgentClient } from "./agent-client";
import type { AgentTransport } from "./agent-transport";
import type { OperatorEnv } from "./env";
import { createLiveState } from "./live-state";
import { createOperatorMetrics } from "./metrics";
import { DEFAULT_PRESENCE_CONFIG, settleMsFor, silenceMsFor } from "./presence/presence";
import { createPresenceThread } from "./presence/thread";
import { DEFAULT_OPERATOR_CONFIG, type OperatorConfig, type OperatorDeps } from "./reconcilers/deps";
import { createLedger } from "./reconcilers/ledger";
import { createManualRequests } from "./requests";
import { createVerdictStore } from "./shadow/verdict-store";
import { createShadowWatcher } from "./shadow/watcher";

/** The operator's configuration as its environment sets it (server/operator/env.ts). */
export function operatorConfigFromEnv(
  env: OperatorEnv,
  kind: ClusterBackend["kind"],
): Partial<OperatorConfig> {
  return {
    pollMs: env.REBOUND_AGENT_POLL_MS,
    agentTimeoutMs: env.REBOUND_AGENT_TIMEOUT_MS,
    agentPush: env.REBOUND_AGENT_PUSH,
    presence: {
      heartbeatMs: env.REBOUND_AGENT_HEARTBEAT_MS,
      silenceMs: env.REBOUND_AGENT_SILENCE_MS ?? silenceMsFor(kind),
      settleMs: env.REBOUND_AGENT_SETTLE_MS ?? settleMsFor(kind),
    },
  };
}

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
