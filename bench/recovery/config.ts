import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/**
 * The benchmark's knobs (defaults are the measured set-up):
 *   --nodes 8 --ranks-per-node 8   the job: 8 virtual nodes × 8 ranks = 64 ranks (+1 spare node)
 *   --faults 20                    crashes and hangs measured, each
 *   --full-restarts 10             full job restarts measured (a second job: every fault → JLR)
 *   --node-faults 20               node failures measured at most, as many as --budget-s leaves room for
 *   --stalls 5                     stalled agents (SIGSTOP) measured: detection latency
 *   --budget-s 600                 wall-clock budget for the whole run (node failures give way first)
 *   --step-ms 100 --hang-seconds 2 the trainer's step time and the JobHang rule's window
 *   --poll-ms 100                  the operator's agent poll interval (its default)
 */
export type BenchConfig = {
  nodes: number;
  ranksPerNode: number;
  faults: number;
  fullRestarts: number;
  nodeFaults: number;
  stalls: number;
  budgetMs: number;
  stepMs: number;
  hangSeconds: number;
  pollMs: number;
};

const DEFAULTS = {
  nodes: "8",
  "ranks-per-node": "8",
  faults: "20",
  "full-restarts": "10",
  "node-faults": "20",
  stalls: "5",
  "budget-s": "600",
  "step-ms": "100",
  "hang-seconds": "2",
  "poll-ms": "100",
} as const;

type Flag = keyof typeof DEFAULTS;

export function parseConfig(argv: string[]): BenchConfig {
  const options = stringOptions<Flag>(DEFAULTS);
  const { values } = parseArgs({ args: argv, options });
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    nodes: int("nodes", 1),
    ranksPerNode: int("ranks-per-node", 1),
    faults: int("faults", 1),
    fullRestarts: int("full-restarts", 1),
    nodeFaults: int("node-faults", 0),
    stalls: int("stalls", 0),
    budgetMs: int("budget-s", 1) * 1000,
    stepMs: int("step-ms", 1),
    hangSeconds: int("hang-seconds", 1),
    pollMs: int("poll-ms", 20),
  };
}
