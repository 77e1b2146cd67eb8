import { hostname } from "node:os";

/**
 * The agent's only window on its environment (Biome's noProcessEnv is lifted for this file). Workers inherit
 * the agent's whole environment (OMP_NUM_THREADS, CUDA_VISIBLE_DEVICES, PATH, …) plus the torch variables.
 */

export type ProcessEnv = Readonly<Record<string, string>>;

/** A copy of the agent's environment with unset entries dropped. */
export function agentProcessEnv(): ProcessEnv {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Names this agent in log folders: `<hostname>-<pid>` (torchrun uses a random suffix instead). */
export function agentId(): string {
  return `${hostname()}-${process.pid}`;
}

/** For child_process.spawn, whose env type (augmented by Next.js) insists on NODE_ENV. */
export function spawnEnv(env: ProcessEnv): NodeJS.ProcessEnv {
  return { ...env } as NodeJS.ProcessEnv;
}
