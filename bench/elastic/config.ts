import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/**
 * The benchmark's knobs:
 *   --nodes 8 --gpus-per-node 2   the cluster: 16 GPUs; every pod takes a node's 2 GPUs and runs 2 ranks
 *   --other-pods 4                the other team's job: 4 pods (8 GPUs, its whole guaranteed quota)
 *   --cycles 2                    times the other team's job ends and comes back
 *   --other-seconds 40            how long the other team's job trains each time before it ends
 *   --hold-seconds 30             how long the elastic job keeps the freed GPUs before that job is back
 *   --step-ms 100                 the trainers' step time
 *   --scaling-timeout-s 2         elasticPolicy.scalingTimeoutInSeconds (stabilisation before a scale-up)
 *   --graceful-s 20               elasticPolicy.gracefulShutdownTimeoutInSeconds
 *   --poll-ms 100                 the operator's agent poll interval (its default)
 */
export type ElasticConfig = {
  nodes: number;
  gpusPerNode: number;
  otherPods: number;
  cycles: number;
  otherSeconds: number;
  holdSeconds: number;
  stepMs: number;
  scalingTimeoutSeconds: number;
  gracefulSeconds: number;
  pollMs: number;
};

const DEFAULTS = {
  nodes: "8",
  "gpus-per-node": "2",
  "other-pods": "4",
  cycles: "2",
  "other-seconds": "40",
  "hold-seconds": "30",
  "step-ms": "100",
  "scaling-timeout-s": "2",
  "graceful-s": "20",
  "poll-ms": "100",
} as const;

type Flag = keyof typeof DEFAULTS;

export function parseConfig(argv: string[]): ElasticConfig {
  const { values } = parseArgs({ args: argv, options: stringOptions<Flag>(DEFAULTS) });
  const int = integerReader<Flag>(DEFAULTS, values);
  const config = {
    nodes: int("nodes", 2),
    gpusPerNode: int("gpus-per-node", 1),
    otherPods: int("other-pods", 1),
    cycles: int("cycles", 1),
    otherSeconds: int("other-seconds", 5),
    holdSeconds: int("hold-seconds", 1),
    stepMs: int("step-ms", 1),
    scalingTimeoutSeconds: int("scaling-timeout-s", 0),
    gracefulSeconds: int("graceful-s", 1),
    pollMs: int("poll-ms", 20),
  };
  if (config.otherPods >= config.nodes - 1)
    throw new Error("--other-pods: leave the elastic job at least 2 nodes beside the other team's job");
  return config;
}

/** The elastic job's sizes: its minimum, beside the other team's job, and all the nodes. */
export function sizes(config: ElasticConfig): { min: number; beside: number; max: number } {
  return { min: 2, beside: config.nodes - config.otherPods, max: config.nodes };
}
