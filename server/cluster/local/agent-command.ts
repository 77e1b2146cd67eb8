/**
 * Turns a pod template's container command into the local process that plays that container: the agent
 * (`rebound-agent`, or `hyperpodrun`, which our agent stands in for) run by this Node.js, listening on a
 * port of our choosing, with logs under the pod's directory. Anything else is refused with a clear reason.
 */
import { operatorInjectedEnv } from "@/server/cluster/pod-env";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { podHostEnv, spawnableEnv } from "./host-env";

export type AgentCommand = { command: string; args: string[] };

/** Workers of local pods run at the lowest CPU priority (they still get every idle cycle). */
export const LOCAL_WORKER_NICE = 19;

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

export function localAgentCommand(opts: {
  argv: readonly string[];
  agentBin: string;
  port: number;
  logDir: string;
}): { ok: true; command: AgentCommand } | { ok: false; reason: string } {
  const start = opts.argv.findIndex((token) => AGENT.test(token));
  if (start < 0) {
    return {
      ok: false,
      reason: `the local back end runs containers whose command starts the agent (rebound-agent or hyperpodrun); got: ${opts.argv.join(" ") || "(empty)"}`,
    };
  }
  const rest = stripOverridden(opts.argv.slice(start + 1));
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
        // Operator, agents and every rank share this machine: ranks yield the CPU to the control plane.
        "--worker-nice",
        String(LOCAL_WORKER_NICE),
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
    ...input.extra,
  });
}
