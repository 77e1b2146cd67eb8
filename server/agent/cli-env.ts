import { availableParallelism } from "node:os";
import type { AgentConfig } from "./cli";
import type { Parsed } from "./cli-values";
import { parseIntIn } from "./cli-values";
import { EARLY_WORKER_RESTART_ENV, logRulesAllRanksFromEnv, type ProcessEnv, switchFromEnv } from "./env";

/**
 * What the agent takes from its environment besides its flags, so that one command line serves both
 * hyperpodrun and this agent (hyperpodrun refuses flags it does not know):
 * - REBOUND_WORKER_NICE (0-19): as `--worker-nice`; a flag given wins.
 * - REBOUND_LOG_RULES_ALL_RANKS (true/false/1/0): as `--log-rules-all-ranks`; either one opts in.
 * - REBOUND_EARLY_WORKER_RESTART (true/false/1/0): as `--early-worker-restart`; either one opts in.
 * - `--nproc-per-node auto|cpu|gpu`, resolved as torchrun's `determine_local_world_size`: gpu = the GPUs
 *   visible (CUDA_VISIBLE_DEVICES; an error when there are none, "Cuda is not available"), cpu = the CPU
 *   count, auto = the GPUs when there are any, else the CPU count.
 */

export const WORKER_NICE_ENV = "REBOUND_WORKER_NICE";

/** GPUs this process may use: the entries of CUDA_VISIBLE_DEVICES (unset or empty: none). */
export function visibleGpus(env: ProcessEnv): number {
  const list = env.CUDA_VISIBLE_DEVICES ?? "";
  return list.split(",").filter((entry) => entry.trim() !== "" && entry.trim() !== "-1").length;
}

export function resolveNproc(config: AgentConfig, env: ProcessEnv, cpus: number): Parsed<number> {
  const gpus = visibleGpus(env);
  switch (config.nprocPerNodeMode) {
    case null:
      return { ok: true, value: config.nprocPerNode };
    case "gpu":
      return gpus > 0
        ? { ok: true, value: gpus }
        : {
            ok: false,
            error: "--nproc-per-node gpu: Cuda is not available (CUDA_VISIBLE_DEVICES names no GPU)",
          };
    case "cpu":
      return { ok: true, value: cpus };
    case "auto":
      return { ok: true, value: gpus > 0 ? gpus : cpus };
    default:
      return config.nprocPerNodeMode satisfies never;
  }
}

function workerNice(config: AgentConfig, argv: readonly string[], env: ProcessEnv): Parsed<number> {
  const text = env[WORKER_NICE_ENV];
  const flagGiven = argv.some((arg) => /^--worker[-_]nice(=|$)/.test(arg));
  if (flagGiven || text === undefined || text === "") return { ok: true, value: config.workerNice };
  const parsed = parseIntIn(text, { min: 0, max: 19 });
  return parsed.ok ? parsed : { ok: false, error: `${WORKER_NICE_ENV}: ${parsed.error}` };
}

/** The parsed flags completed from the environment, or the first error (naming the variable or flag). */
export function withEnvironment(
  config: AgentConfig,
  input: { argv: readonly string[]; env: ProcessEnv; cpus?: number },
): { ok: true; config: AgentConfig } | { ok: false; error: string } {
  const allRanks = logRulesAllRanksFromEnv(input.env);
  if (!allRanks.ok) return { ok: false, error: allRanks.error };
  const early = switchFromEnv(input.env, EARLY_WORKER_RESTART_ENV);
  if (!early.ok) return { ok: false, error: early.error };
  const nice = workerNice(config, input.argv, input.env);
  if (!nice.ok) return { ok: false, error: nice.error };
  const nproc = resolveNproc(config, input.env, input.cpus ?? availableParallelism());
  if (!nproc.ok) return { ok: false, error: nproc.error };
  return {
    ok: true,
    config: {
      ...config,
      nprocPerNode: nproc.value,
      workerNice: nice.value,
      logRulesAllRanks: config.logRulesAllRanks || allRanks.value,
      earlyWorkerRestart: config.earlyWorkerRestart || early.value,
    },
  };
}
