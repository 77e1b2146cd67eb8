import {
  type NprocMode,
  type Parsed,
  parseIntIn,
  parseNnodes,
  parseNprocPerNode,
  parseSeconds,
  parseSignal,
  parseTee,
  splitShellWords,
  type TeeMode,
} from "./cli-values";

/**
 * The flags `rebound-agent` understands: hyperpodrun's own
 * (docs/hyperpod-compatibility.md, "The agent's command line"), the torchrun flags that matter here, our
 * `--monitor-interval-ms`, and the remaining torchrun flags accepted and ignored so an existing `hyperpodrun
 * …` / `torchrun …` command line runs unchanged. Names are matched with `_` read as `-`.
 */

export type AgentOptions = {
  /** `--nnodes` as given (informational: WORLD_SIZE comes from the operator's /start). */
  nnodes: string | null;
  nprocPerNode: number;
  /** `--nproc-per-node auto|cpu|gpu`: resolved to `nprocPerNode` on the node (cli-env.ts); null for a count. */
  nprocPerNodeMode: NprocMode | null;
  /**
   * Whether the command line gave `--nproc-per-node`: without it the count comes from PET_NPROC_PER_NODE
   * (the operator sets it to `spec.nprocPerNode`), as torchrun's parser defaults the flag (cli-env.ts).
   */
  nprocPerNodeGiven: boolean;
  serverHost: string;
  serverPort: number;
  shutdownSignal: NodeJS.Signals;
  shutdownTimeoutSeconds: number;
  preTrainScript: string | null;
  preTrainArgs: string[];
  postTrainScript: string | null;
  postTrainArgs: string[];
  logDir: string;
  monitorIntervalMs: number;
  noPython: boolean;
  module: boolean;
  maxRestarts: number;
  runId: string;
  tee: TeeMode;
  inprocessRestart: boolean;
  /**
   * `--inprocess-timeout`: seconds the in-process-restart agent waits for paused ranks to reach the barrier
   * before it restarts the processes instead (null: wait as long as they stay connected, as hyperpodrun).
   */
  inprocessTimeoutSeconds: number | null;
  /**
   * Rebound opt-in (`--early-worker-restart`, in-process mode only): a node whose worker died while running
   * starts its workers again at once, before the operator's /stop. hyperpodrun leaves them dead until the
   * /stop (its _handle_failed_state only reports FAULTED; STOPPING then runs _stop_workers).
   */
  earlyWorkerRestart: boolean;
  /**
   * Rebound: run workers this much nicer (0-19) than the agent, see managed-process.ts. Also
   * REBOUND_WORKER_NICE, so a command line stays the same for hyperpodrun and this agent.
   */
  workerNice: number;
  /**
   * Rebound opt-in (`--log-rules-all-ranks`, or REBOUND_LOG_RULES_ALL_RANKS=true): every local rank's log
   * rules can fault the job. By default only local rank 0's do, as hyperpodrun (`_log_agent.start(…, {0}, …)`);
   * the other ranks' rule states are still evaluated and reported in /status.
   */
  logRulesAllRanks: boolean;
};

export const DEFAULT_OPTIONS: Readonly<AgentOptions> = {
  nnodes: null,
  nprocPerNode: 1,
  nprocPerNodeMode: null,
  nprocPerNodeGiven: false,
  serverHost: "0.0.0.0",
  serverPort: 8080,
  // hyperpodrun's defaults (run.py: --shutdown-signal SIGKILL, --shutdown-timeout 15; the timeout is the
  // grace between SIGTERM and SIGKILL, so it only matters with --shutdown-signal SIGTERM).
  shutdownSignal: "SIGKILL",
  shutdownTimeoutSeconds: 15,
  preTrainScript: null,
  preTrainArgs: [],
  postTrainScript: null,
  postTrainArgs: [],
  logDir: "/tmp/hyperpod",
  monitorIntervalMs: 250,
  noPython: false,
  module: false,
  maxRestarts: 0,
  runId: "none",
  tee: "none",
  inprocessRestart: false,
  inprocessTimeoutSeconds: null,
  earlyWorkerRestart: false,
  workerNice: 0,
  logRulesAllRanks: false,
};

/** The options a parsed nproc-per-node value sets: a count, or a device word resolved on the node. */
export function nprocOptions(
  value: number | NprocMode,
): Pick<AgentOptions, "nprocPerNode" | "nprocPerNodeMode"> {
  return typeof value === "number"
    ? { nprocPerNode: value, nprocPerNodeMode: null }
    : { nprocPerNode: DEFAULT_OPTIONS.nprocPerNode, nprocPerNodeMode: value };
}

export type FlagSpec =
  | { kind: "value"; apply: (options: AgentOptions, value: string) => string | null }
  | { kind: "switch"; apply: (options: AgentOptions) => void };

/** The options a value of type T can be stored in. */
type KeysOf<T> = { [K in keyof AgentOptions]: T extends AgentOptions[K] ? K : never }[keyof AgentOptions];

/** A flag with a value: parsed, then stored under `key`. */
function value<T>(parse: (text: string) => Parsed<T>, key: KeysOf<T>): FlagSpec {
  return {
    kind: "value",
    apply: (options, text) => {
      const parsed = parse(text);
      if (!parsed.ok) return parsed.error;
      Object.assign(options, { [key]: parsed.value });
      return null;
    },
  };
}

const switchOn = (key: KeysOf<boolean>): FlagSpec => ({
  kind: "switch",
  apply: (options) => {
    Object.assign(options, { [key]: true });
  },
});

const text = (input: string): Parsed<string> =>
  input.length > 0 ? { ok: true, value: input } : { ok: false, error: "expected a non-empty value" };
const intIn = (min: number, max: number) => (input: string) => parseIntIn(input, { min, max });
const ignoredValue: FlagSpec = { kind: "value", apply: () => null };
const ignoredSwitch: FlagSpec = { kind: "switch", apply: () => undefined };

const FLAGS: Record<string, FlagSpec> = {
  nnodes: value(parseNnodes, "nnodes"),
  "nproc-per-node": {
    kind: "value",
    apply: (options, input) => {
      const parsed = parseNprocPerNode(input);
      if (!parsed.ok) return parsed.error;
      Object.assign(options, nprocOptions(parsed.value), { nprocPerNodeGiven: true });
      return null;
    },
  },
  "server-host": value(text, "serverHost"),
  "server-port": value(intIn(0, 65_535), "serverPort"),
  "shutdown-signal": value(parseSignal, "shutdownSignal"),
  "shutdown-timeout": value(parseSeconds, "shutdownTimeoutSeconds"),
  "pre-train-script": value(text, "preTrainScript"),
  "pre-train-args": value(splitShellWords, "preTrainArgs"),
  "post-train-script": value(text, "postTrainScript"),
  "post-train-args": value(splitShellWords, "postTrainArgs"),
  "log-dir": value(text, "logDir"),
  "worker-nice": value(intIn(0, 19), "workerNice"),
  "monitor-interval-ms": value(intIn(10, 60_000), "monitorIntervalMs"),
  "max-restarts": value(intIn(0, 1_000_000), "maxRestarts"),
  "rdzv-id": value(text, "runId"),
  tee: value(parseTee, "tee"),
  "no-python": switchOn("noPython"),
  module: switchOn("module"),
  "inprocess-restart": switchOn("inprocessRestart"),
  "inprocess-timeout": value(parseSeconds, "inprocessTimeoutSeconds"),
  "early-worker-restart": switchOn("earlyWorkerRestart"),
  "log-rules-all-ranks": switchOn("logRulesAllRanks"),
  // Accepted for compatibility, no effect here (output always goes to per-rank log files; rendezvous
  // comes from the operator; uvicorn knobs do not apply to node:http).
  "rdzv-backend": ignoredValue,
  "rdzv-endpoint": ignoredValue,
  "rdzv-conf": ignoredValue,
  "master-addr": ignoredValue,
  "master-port": ignoredValue,
  "node-rank": ignoredValue,
  "local-addr": ignoredValue,
  "start-method": ignoredValue,
  role: ignoredValue,
  "monitor-interval": ignoredValue,
  redirects: ignoredValue,
  redirect: ignoredValue,
  "local-ranks-filter": ignoredValue,
  "logs-specs": ignoredValue,
  "event-log-handler": ignoredValue,
  "numa-binding": ignoredValue,
  "signals-to-handle": ignoredValue,
  "server-log-level": ignoredValue,
  "server-shutdown-timeout": ignoredValue,
  "duplicate-stdout-filters": ignoredValue,
  "duplicate-stderr-filters": ignoredValue,
  standalone: ignoredSwitch,
  "run-path": ignoredSwitch,
  "virtual-local-rank": ignoredSwitch,
};

const SHORT_FLAGS: Record<string, string> = { "-m": "module", "-r": "redirects", "-t": "tee" };

/** `--nproc_per_node` → `nproc-per-node`; `-m` → `module`; null for something that is not a known flag. */
export function lookupFlag(name: string): { name: string; spec: FlagSpec } | null {
  const short = Object.hasOwn(SHORT_FLAGS, name) ? SHORT_FLAGS[name] : undefined;
  const canonical = short ?? (name.startsWith("--") ? name.slice(2).replaceAll("_", "-") : null);
  if (canonical === null || !Object.hasOwn(FLAGS, canonical)) return null;
  const spec = FLAGS[canonical];
  return spec === undefined ? null : { name: canonical, spec };
}
