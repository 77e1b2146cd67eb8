import { hostname } from "node:os";

/**
 * The agent's only window on its environment (Biome's noProcessEnv is lifted for this file). Workers inherit
 * the agent's whole environment (OMP_NUM_THREADS, CUDA_VISIBLE_DEVICES, PATH, …) plus the torch variables.
 */

export type ProcessEnv = Readonly<Record<string, string>>;

/**
 * The per-pod credential the operator gives the agent (server/cluster/agent-credential.ts): every call but
 * /healthz and /metrics must carry it (server.ts). Set: the agent asks for it; unset: the agent answers
 * anyone, as the unchanged hyperpod-elastic-agent does.
 */
export const AGENT_CREDENTIAL_ENV = "REBOUND_AGENT_CREDENTIAL";

/** A copy of the agent's environment with unset entries dropped, less its credential: workers never see it. */
export function agentProcessEnv(): ProcessEnv {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== AGENT_CREDENTIAL_ENV) env[key] = value;
  }
  return env;
}

/**
 * The credential the operator gave this agent, taken out of its environment (nothing it starts inherits
 * it); null when none (an empty value is none).
 */
export function takeAgentCredential(): string | null {
  const value = process.env[AGENT_CREDENTIAL_ENV];
  delete process.env[AGENT_CREDENTIAL_ENV];
  return value ? value : null;
}

/** Names this agent in log folders: `<hostname>-<pid>` (torchrun uses a random suffix instead). */
export function agentId(): string {
  return `${hostname()}-${process.pid}`;
}

/** For child_process.spawn, whose env type (augmented by Next.js) insists on NODE_ENV. */
export function spawnEnv(env: ProcessEnv): NodeJS.ProcessEnv {
  return { ...env } as NodeJS.ProcessEnv;
}

export const LOG_RULES_ALL_RANKS_ENV = "REBOUND_LOG_RULES_ALL_RANKS";
export const EARLY_WORKER_RESTART_ENV = "REBOUND_EARLY_WORKER_RESTART";

/** An opt-in from the environment: "true"/"1" on, "false"/"0"/unset off; anything else an error message. */
export function switchFromEnv(
  env: ProcessEnv,
  name: string,
): { ok: true; value: boolean } | { ok: false; error: string } {
  const text = env[name];
  if (text === undefined || text === "" || text === "false" || text === "0")
    return { ok: true, value: false };
  if (text === "true" || text === "1") return { ok: true, value: true };
  return { ok: false, error: `${name}: expected true, false, 1 or 0, got "${text}"` };
}

/**
 * REBOUND_LOG_RULES_ALL_RANKS: "true"/"1" opts in to faulting on every local rank's log rules (as the
 * --log-rules-all-ranks flag), "false"/"0"/unset leaves hyperpodrun's rank-0-only default; anything else is
 * an error message.
 */
export const logRulesAllRanksFromEnv = (env: ProcessEnv) => switchFromEnv(env, LOG_RULES_ALL_RANKS_ENV);
