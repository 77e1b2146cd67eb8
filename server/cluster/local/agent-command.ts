/**
 * Turns a pod template's container command into the local process that plays that container, listening on
 * a port of our choosing, with logs under the pod's directory: `hyperpodrun` itself where it is installed
 * (an absolute path to it, or `hyperpodrun` found on this machine's PATH), else our agent run by this
 * Node.js (`rebound-agent`, standing in for `hyperpodrun`). Anything else is refused with a clear reason.
 * The command line is the same for both: Rebound's extras travel in the environment (REBOUND_WORKER_NICE).
 */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { operatorInjectedEnv } from "@/server/cluster/pod-env";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { hostEnvironment, podHostEnv, spawnableEnv } from "./host-env";

export type AgentCommand = { command: string; args: string[] };

/**
 * Workers of local pods are not lowered below their agents (REBOUND_WORKER_NICE=0). The agent starts each
 * worker in a session of its own, which Linux schedules as a group of its own (autogroup), so lowering a
 * worker means writing /proc/<pid>/autogroup; without CAP_SYS_ADMIN (a pod runs as the pod user, or as the
 * operator's own non-root user) the kernel takes one such write per 100 ms machine-wide and refuses the
 * rest with EAGAIN (kernel/sched/autogroup.c). With 19 asked, one or two of a node's eight workers got it
 * and the others did not: those few ran at 15/1024 of their neighbours' weight, lagged ~7 % in steps,
 * started 1-4 s after the rest when a node restarted (holding its READY, so the recovery), paused last and
 * stopped printing for over a second under load (false hangs). Every worker at the same weight instead.
 */
export const LOCAL_WORKER_NICE = 0;

const AGENT = /(^|\/)(rebound-agent|hyperpodrun)(\.mjs)?$/;
const OVERRIDDEN = [
  "--server-port",
  "--server_port",
  "--server-host",
  "--server_host",
  "--log-dir",
  "--log_dir",
];

function stripOverridden(flags: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < flags.length; i += 1) {
    const token = flags[i] as string;
    const name = token.split("=")[0] as string;
    if (!OVERRIDDEN.includes(name)) kept.push(token);
    else if (!token.includes("=")) i += 1;
  }
  return kept;
}

/** An executable file at `file`, or found as `file` on `searchPath` (colon-separated); else null. */
export function findExecutable(file: string, searchPath: string | undefined): string | null {
  const candidates = file.includes("/")
    ? [file]
    : (searchPath ?? "")
        .split(":")
        .filter(Boolean)
        .map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there or not executable: try the next.
    }
  }
  return null;
}

const REAL_AGENT = /(^|\/)hyperpodrun$/;

/**
 * The real hyperpodrun's command: ours are its server host, port and log dir, and its rendezvous file
 * (hard-coded /opt/ml/input/config/pod_resourceconfig.json, which every pod of this machine would share)
 * moves into the pod's log dir through `--rdzv-conf resource_config_dir=…`, merged into any given.
 */
function realAgentArgs(rest: string[], opts: { port: number; logDir: string }): string[] {
  const own: string[] = [];
  const conf = [`resource_config_dir=${path.join(opts.logDir, "hyperpod-config")}`];
  for (let i = 0; i < rest.length; i += 1) {
    const token = rest[i] as string;
    const [name, inline] = token.split(/=(.*)/s) as [string, string | undefined];
    if (name !== "--rdzv-conf" && name !== "--rdzv_conf") {
      own.push(token);
      continue;
    }
    if (inline === undefined) i += 1;
    const given = inline ?? rest[i];
    if (given) conf.unshift(given);
  }
  return [
    "--server-host",
    "127.0.0.1",
    "--server-port",
    String(opts.port),
    "--log-dir",
    opts.logDir,
    "--rdzv-conf",
    conf.join(","),
    ...own,
  ];
}

export function localAgentCommand(opts: {
  argv: readonly string[];
  agentBin: string;
  port: number;
  logDir: string;
  /** Where `hyperpodrun` is, if installed (default: an absolute path as given, else this machine's PATH). */
  findHyperpodrun?: (token: string) => string | null;
}): { ok: true; command: AgentCommand } | { ok: false; reason: string } {
  const start = opts.argv.findIndex((token) => AGENT.test(token));
  if (start < 0) {
    return {
      ok: false,
      reason: `the local back end runs containers whose command starts the agent (rebound-agent or hyperpodrun); got: ${opts.argv.join(" ") || "(empty)"}`,
    };
  }
  const rest = stripOverridden(opts.argv.slice(start + 1));
  const token = opts.argv[start] as string;
  const find = opts.findHyperpodrun ?? ((name: string) => findExecutable(name, hostEnvironment().PATH));
  const real = REAL_AGENT.test(token) ? find(token) : null;
  if (real !== null) return { ok: true, command: { command: real, args: realAgentArgs(rest, opts) } };
  return {
    ok: true,
    command: {
      command: process.execPath,
      args: [
        opts.agentBin,
        "--server-host",
        "127.0.0.1",
        "--server-port",
        String(opts.port),
        "--log-dir",
        opts.logDir,
        ...rest,
      ],
    },
  };
}

type Container = { command?: unknown; args?: unknown; env?: unknown };

const strings = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

/** The command line of the container that runs the agent (else the first container's). */
export function containerArgv(containers: readonly unknown[]): string[] {
  for (const container of containers as Container[]) {
    const argv = [...strings(container.command), ...strings(container.args)];
    if (argv.some((token) => /rebound-agent|hyperpodrun/.test(token))) return argv;
  }
  const first = containers[0] as Container | undefined;
  return first ? [...strings(first.command), ...strings(first.args)] : [];
}

/** Literal `env` values of the containers (valueFrom references have no meaning for a local process). */
export function containerEnv(containers: readonly unknown[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const container of containers as Container[]) {
    if (!Array.isArray(container.env)) continue;
    for (const item of container.env as Array<{ name?: unknown; value?: unknown }>) {
      if (typeof item.name === "string" && typeof item.value === "string") env[item.name] = item.value;
    }
  }
  return env;
}

/**
 * A local pod's environment, later entries winning: this machine's allow-listed variables (host-env.ts:
 * PATH, the locale…, as a container inherits its image's), what HyperPod's operator injects (`NNODES`…),
 * the containers' literal `env`, then the back end's own (the pod's name and node, its checkpoint dir,
 * its GPUs). `host` is filtered here too, so no caller can hand a pod the operator's whole environment.
 */
export function localPodEnv(input: {
  host: Readonly<Record<string, string | undefined>>;
  job: HyperPodPyTorchJob;
  containers: readonly unknown[];
  extra: Record<string, string>;
}): NodeJS.ProcessEnv {
  return spawnableEnv({
    ...podHostEnv(input.host),
    ...operatorInjectedEnv(input.job),
    ...containerEnv(input.containers),
    // Our agent reads it (hyperpodrun has no such knob): ranks at their agent's priority, see above.
    REBOUND_WORKER_NICE: String(LOCAL_WORKER_NICE),
    ...input.extra,
  });
}
