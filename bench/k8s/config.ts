import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";
import { OPERATOR_HEAP_FLAG } from "./operator-sizing";

/** The node-signal sources `--node-signal` takes (bench/k8s/node-signal.ts sets each). */
export const BENCH_SIGNAL_SOURCES = ["hyperpod", "kubernetes", "nvsentinel", "npd", "eks", "dcgm"] as const;
export type BenchSignalSource = (typeof BENCH_SIGNAL_SOURCES)[number];

/**
 * The benchmark's knobs (defaults are the set-up the targets name):
 *   --nodes 256 --gpus-per-node 8   the job: 256 pods × 8 ranks = 2,048 ranks, one pod per KWOK node
 *   --spare-nodes 2                 more KWOK nodes, free, where a failed node's pod can go
 *   --faults 5                      node failures measured (fewer when --budget-s runs out)
 *   --budget-s 600                  wall-clock budget for the whole run, set-up included (the test cluster's
 *                                  one-time Go build excepted); a run that measures no fault exits 1
 *   --steady-s 10                   a quiet window with the job Running, before the first fault
 *   --poll-ms 0                     the operator's REBOUND_AGENT_POLL_MS; 0 = its default
 *   --step-ms 0                     stand-in ranks print a step this often (0: never, as static ranks; then a
 *                                  fault within a minute of the last restart meets the crash-loop back-off)
 *   --silent-percent 0              after the quiet window, freeze this % of the job's pods' agents over
 *                                  10 s and time the operator's "agent silent" line for each (0 = off;
 *                                  bench/k8s/silence.ts)
 *   --agent-processes N             the stand-in agents' processes, each serving its part of the pods
 *                                  (default 1; see docs/benchmarks.md, bench:k8s, for what 4 did)
 *   --operator-node-args="--max-old-space-size=256"   node flags for the operator: by default the same heap
 *                                  cap as deploy/operator/deployment.yaml's NODE_OPTIONS ("" for none;
 *                                  bench/k8s/operator-sizing.ts derives it)
 *   --operator-log PATH            keep the operator's log there, and the stand-in agents' agents*.log beside it
 *                                  (default: both in the run's temp dir, removed)
 *   --node-signal SOURCE[,SOURCE…] the faults are those sources' node signals instead of HyperPod's label
 *                                  (hyperpod, kubernetes, nvsentinel, npd, eks, dcgm, or all; bench/k8s/
 *                                  node-signal.ts), timed from the signal set to the replacement pod; --faults
 *                                  trials of each, taken in turns
 *   --scrape-ms 1000               with --node-signal dcgm: how often Prometheus scrapes the stand-in exporter
 *   --verbose                       the cluster's and the operator's logs on stderr
 */
export type BenchConfig = {
  nodes: number;
  gpusPerNode: number;
  spareNodes: number;
  faults: number;
  budgetMs: number;
  steadyMs: number;
  pollMs: number | null;
  stepMs: number;
  silentPercent: number;
  /** Processes the stand-in agents are spread over (bench/k8s/agents.ts). */
  agentProcesses: number;
  operatorNodeArgs: string[];
  operatorLog: string | null;
  /** The sources whose node signals the faults set, in turns; none: HyperPod's label, with the full report. */
  nodeSignals: BenchSignalSource[];
  scrapeMs: number;
  verbose: boolean;
};

const DEFAULTS = {
  nodes: "256",
  "gpus-per-node": "8",
  "spare-nodes": "2",
  faults: "5",
  "budget-s": "600",
  "steady-s": "10",
  "poll-ms": "0",
  "step-ms": "0",
  "scrape-ms": "1000",
} as const;

type Flag = keyof typeof DEFAULTS;

function nodeSignalsOf(value: string | undefined): BenchSignalSource[] {
  if (value === undefined) return [];
  if (value === "all") return [...BENCH_SIGNAL_SOURCES];
  const names = value.split(",");
  const unknown = names.filter((name) => !(BENCH_SIGNAL_SOURCES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(
      `--node-signal: expected all or some of ${BENCH_SIGNAL_SOURCES.join(", ")}, got ${value}`,
    );
  return [...new Set(names)] as BenchSignalSource[];
}

export function parseConfig(argv: string[]): BenchConfig {
  const options = {
    ...stringOptions<Flag>(DEFAULTS),
    "operator-node-args": { type: "string" as const, default: OPERATOR_HEAP_FLAG },
    "operator-log": { type: "string" as const },
    "silent-percent": { type: "string" as const, default: "0" },
    "agent-processes": { type: "string" as const },
    "node-signal": { type: "string" as const },
    verbose: { type: "boolean" as const, default: false },
  };
  const { values } = parseArgs({ args: argv, options });
  const int = integerReader<Flag>(DEFAULTS, values);
  const pollMs = int("poll-ms", 0);
  const silentPercent = Number(values["silent-percent"]);
  if (!(silentPercent >= 0 && silentPercent <= 100))
    throw new Error(`--silent-percent: expected a number from 0 to 100, got ${values["silent-percent"]}`);
  const nodes = int("nodes", 1);
  // One by default: four at 2,048 pods missed the silence target more often than one did (docs/benchmarks.md, bench:k8s).
  const agentProcesses = values["agent-processes"] ?? "1";
  if (!/^\d+$/.test(agentProcesses) || Number(agentProcesses) < 1)
    throw new Error(`--agent-processes: expected an integer >= 1, got ${agentProcesses}`);
  return {
    nodes,
    gpusPerNode: int("gpus-per-node", 1),
    spareNodes: int("spare-nodes", 1),
    faults: int("faults", 1),
    budgetMs: int("budget-s", 60) * 1000,
    steadyMs: int("steady-s", 0) * 1000,
    pollMs: pollMs === 0 ? null : Math.max(20, pollMs),
    stepMs: int("step-ms", 0),
    silentPercent,
    agentProcesses: Number(agentProcesses),
    operatorNodeArgs: (values["operator-node-args"] ?? "").split(" ").filter((arg) => arg !== ""),
    operatorLog: values["operator-log"] ?? null,
    nodeSignals: nodeSignalsOf(values["node-signal"]),
    scrapeMs: int("scrape-ms", 100),
    verbose: values.verbose === true,
  };
}
