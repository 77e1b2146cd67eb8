import { type AgentOptions, DEFAULT_OPTIONS, lookupFlag } from "./cli-flags";

/**
 * `rebound-agent [flags] script [script args]`, torchrun style: flags come first, in `--flag value` or
 * `--flag=value` form with `-` or `_` between words; the first argument that is not a flag is the training
 * script and everything after it belongs to the script (`--` also ends the flags).
 */

export type { AgentOptions } from "./cli-flags";

export type AgentConfig = AgentOptions & { script: string; scriptArgs: string[]; warnings: string[] };

export type ParseArgsResult =
  | { kind: "config"; config: AgentConfig }
  | { kind: "help"; text: string }
  | { kind: "error"; message: string };

export const USAGE = `usage: rebound-agent [--nnodes N] [--nproc-per-node N|auto|cpu|gpu] [--server-host HOST] [--server-port PORT]
                     [--shutdown-signal SIG] [--shutdown-timeout SECONDS] [--log-dir DIR]
                     [--pre-train-script PATH [--pre-train-args ARGS]] [--post-train-script PATH [--post-train-args ARGS]]
                     [--monitor-interval-ms MS] [--max-restarts N] [--rdzv-id ID] [--tee 0-3] [--no-python | -m]
                     [--worker-nice 0-19] [--log-rules-all-ranks] [--inprocess-restart [--inprocess-timeout S] [--early-worker-restart]]
                     script [script args...]
  --shutdown-signal SIG      signal that stops workers (default SIGKILL, as hyperpodrun; SIGTERM is followed by
                             SIGKILL after --shutdown-timeout seconds, default 15)
  --inprocess-restart        in-process restart (hyperpodrun's IPR agent): workers start at once and wait at the
                             re-executable code block barrier (IPC socket HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH);
                             /stop pauses them there instead of killing them; --inprocess-timeout S: seconds to
                             wait for paused ranks before restarting the processes (default: while connected)
  --early-worker-restart     (Rebound, with --inprocess-restart) when a worker dies while training, start this
                             node's workers again at once, before the operator's /stop (the agent still reports
                             FAULTED; also REBOUND_EARLY_WORKER_RESTART=true). Default, as hyperpodrun: the
                             failed workers stay down until the /stop
  --worker-nice 0-19         run workers this much nicer than the agent (also REBOUND_WORKER_NICE)
  --log-rules-all-ranks      let every local rank's log rules fault the job (also REBOUND_LOG_RULES_ALL_RANKS=true).
                             Default, as hyperpodrun: only local rank 0's rules do; every rank is still reported in
                             /status, and a rank silent for longer than the shortest
                             expectedRecurringFrequencyInSeconds is marked suspect there.
  --server-port 0 picks a free port (printed on start-up). Every other flag of hyperpodrun 1.1.3 (torchrun's
  and its own) is accepted and ignored, so one command line runs either agent; give Rebound's extras as
  REBOUND_WORKER_NICE, REBOUND_LOG_RULES_ALL_RANKS and REBOUND_EARLY_WORKER_RESTART in the environment for that.`;

type Step = { next: number; error?: string };

function splitFlag(arg: string): { name: string; inline: string | undefined } {
  const eq = arg.indexOf("=");
  return eq > 0 ? { name: arg.slice(0, eq), inline: arg.slice(eq + 1) } : { name: arg, inline: undefined };
}

function applyFlag(options: AgentOptions, argv: readonly string[], index: number): Step {
  const { name, inline } = splitFlag(argv[index] ?? "");
  const flag = lookupFlag(name);
  if (flag === null) return { next: index, error: `unknown flag ${name}` };
  if (flag.spec.kind === "switch") {
    if (inline !== undefined) return { next: index, error: `${name} takes no value` };
    flag.spec.apply(options);
    return { next: index + 1 };
  }
  const next = argv[index + 1];
  const given = inline ?? (next?.startsWith("--") ? undefined : next);
  if (given === undefined) return { next: index, error: `${name} expects a value` };
  const error = flag.spec.apply(options, given);
  if (error !== null) return { next: index, error: `${name}: ${error}` };
  return { next: inline === undefined ? index + 2 : index + 1 };
}

function finish(
  options: AgentOptions,
  rest: { script: string | undefined; args: string[] },
): ParseArgsResult {
  if (rest.script === undefined) return { kind: "error", message: "missing the training script to run" };
  if (options.noPython && options.module) {
    return { kind: "error", message: "--no-python and --module cannot be used together" };
  }
  return { kind: "config", config: { ...options, script: rest.script, scriptArgs: rest.args, warnings: [] } };
}

type ArgKind = "help" | "separator" | "script" | "flag";

function argKind(arg: string): ArgKind {
  if (arg === "--help" || arg === "-h") return "help";
  if (arg === "--") return "separator";
  return arg.startsWith("-") && arg !== "-" ? "flag" : "script";
}

export function parseAgentArgs(argv: readonly string[]): ParseArgsResult {
  const options: AgentOptions = { ...DEFAULT_OPTIONS, preTrainArgs: [], postTrainArgs: [] };
  let index = 0;
  while (index < argv.length) {
    const arg = argv[index] ?? "";
    switch (argKind(arg)) {
      case "help":
        return { kind: "help", text: USAGE };
      case "separator":
        return finish(options, { script: argv[index + 1], args: argv.slice(index + 2) });
      case "script":
        return finish(options, { script: arg, args: argv.slice(index + 1) });
      case "flag": {
        const step = applyFlag(options, argv, index);
        if (step.error !== undefined) return { kind: "error", message: step.error };
        index = step.next;
      }
    }
  }
  return finish(options, { script: undefined, args: [] });
}
