import { cpus } from "node:os";
import { NPROC_PER_NODE_ENV } from "@/server/domain/job-spec/job-size";
import type { AgentConfig } from "./cli";
import { nprocOptions } from "./cli-flags";
import type { Parsed } from "./cli-values";
import { parseIntIn, parseNprocPerNode } from "./cli-values";
import { EARLY_WORKER_RESTART_ENV, logRulesAllRanksFromEnv, type ProcessEnv, switchFromEnv } from "./env";

/**
 * What the agent takes from its environment besides its flags, so that one command line serves both
 * hyperpodrun and this agent (hyperpodrun refuses flags it does not know):
 * - REBOUND_WORKER_NICE (0-19): as `--worker-nice`; a flag given wins.
 * - REBOUND_LOG_RULES_ALL_RANKS (true/false/1/0): as `--log-rules-all-ranks`; either one opts in.
 * - REBOUND_EARLY_WORKER_RESTART (true/false/1/0): as `--early-worker-restart`; either one opts in.
 * - PET_NPROC_PER_NODE (auto, cpu, gpu or a count): the nproc-per-node when the command line gives no
 *   `--nproc-per-node`, as hyperpodrun reads it: its launcher flags are torch's `get_args_parser`, whose
 *   `env` action defaults each flag to `PET_<FLAG>`, so a flag given wins and neither gives 1. The operator
 *   sets it to `spec.nprocPerNode` in every pod (server/cluster/pod-env.ts).
 * - `auto|cpu|gpu` (from either), resolved as torchrun's `determine_local_world_size`: gpu = the GPUs
 *   visible (CUDA_VISIBLE_DEVICES; an error when there are none, "Cuda is not available"), cpu = the CPU
 *   count, auto = the GPUs when there are any, else the CPU count. The CPU count is the machine's, as
 *   Python's `os.cpu_count()` that torchrun uses (not the CPUs this process's affinity allows).
 */

export const WORKER_NICE_ENV = "REBOUND_WORKER_NICE";

/** GPUs this process may use: the entries of CUDA_VISIBLE_DEVICES (unset or empty: none). */
export function visibleGpus(env: ProcessEnv): number {
  const list = env.CUDA_VISIBLE_DEVICES ?? "";
  return list.split(",").filter((entry) => entry.trim() !== "" && entry.trim() !== "-1").length;
}

/** The flag's value, else PET_NPROC_PER_NODE's (set but not a valid value: an error naming it). */
export function nprocFromEnv(config: AgentConfig, env: ProcessEnv): Parsed<AgentConfig> {
  const text = env[NPROC_PER_NODE_ENV];
  if (config.nprocPerNodeGiven || text === undefined) return { ok: true, value: config };
  const parsed = parseNprocPerNode(text);
  if (!parsed.ok) return { ok: false, error: `${NPROC_PER_NODE_ENV}: ${parsed.error}` };
  return { ok: true, value: { ...config, ...nprocOptions(parsed.value) } };
}

/** Where the nproc-per-node came from, for errors: the flag, or the variable standing in for it. */
const nprocSource = (config: AgentConfig) =>
  config.nprocPerNodeGiven ? "--nproc-per-node gpu" : `${NPROC_PER_NODE_ENV}=gpu`;

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
            error: `${nprocSource(config)}: Cuda is not available (CUDA_VISIBLE_DEVICES names no GPU)`,
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
  const fromEnv = nprocFromEnv(config, input.env);
  if (!fromEnv.ok) return { ok: false, error: fromEnv.error };
  const nproc = resolveNproc(fromEnv.value, input.env, input.cpus ?? cpus().length);
  if (!nproc.ok) return { ok: false, error: nproc.error };
  return {
    ok: true,
    config: {
      ...fromEnv.value,
      nprocPerNode: nproc.value,
      workerNice: nice.value,
      logRulesAllRanks: config.logRulesAllRanks || allRanks.value,
      earlyWorkerRestart: config.earlyWorkerRestart || early.value,
    },
  };
}
