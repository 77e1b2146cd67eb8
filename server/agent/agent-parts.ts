import path from "node:path";
import type {
  AgentStatus,
  StartRequest,
  StopRequest,
  UpdateRequest,
} from "@/server/domain/agent-api/protocol";
import type { Logger } from "../log";
import type { AgentConfig } from "./cli";
import type { ProcessEnv } from "./env";
import type { Hook, LauncherSettings, OutputSink } from "./launcher";
import { type Command, type ScriptRunner, scriptCommand } from "./script-command";
import type { Assignment } from "./status";
import type { Rendezvous } from "./worker-env";

// What both agents share, the one that launches a worker group per attempt (agent.ts) and the in-process
// restart one (ipr/ipr-agent.ts): apart from both, so that neither imports the other's module to reach it.

export type AgentDeps = {
  config: AgentConfig;
  agentId: string;
  baseEnv: ProcessEnv;
  runner: ScriptRunner;
  logger: Logger;
  output: OutputSink;
  now: () => number;
};

export type CommandResult = { ok: true } | { ok: false; status: 409; detail: string };

export type Agent = {
  /** INIT → READY, once the server listens. */
  markReady(): void;
  start(request: StartRequest): CommandResult;
  update(request: UpdateRequest): CommandResult;
  stop(request: StopRequest): CommandResult;
  shutdown(): CommandResult;
  /** SIGTERM/SIGINT: stop the workers (shutdown signal, SIGKILL after the timeout) whatever the state. */
  terminate(): Promise<void>;
  /** Resolves once a /shutdown has stopped the workers. */
  whenShutdown(): Promise<void>;
  killAll(): void;
  status(): AgentStatus;
  metrics(): Promise<string>;
};

function hookOf(input: {
  script: string | null;
  args: readonly string[];
  runner: ScriptRunner;
}): Hook | null {
  if (input.script === null) return null;
  return { script: input.script, command: scriptCommand({ ...input, script: input.script }) };
}

export function launcherSettings(deps: Pick<AgentDeps, "config" | "agentId" | "runner">): LauncherSettings {
  const { config, runner } = deps;
  const train: Command = scriptCommand({
    script: config.script,
    args: config.scriptArgs,
    mode: config,
    runner,
  });
  return {
    nprocPerNode: config.nprocPerNode,
    maxRestarts: config.maxRestarts,
    runId: config.runId,
    runDir: path.join(config.logDir, `${config.runId}_${deps.agentId}`),
    monitorIntervalMs: config.monitorIntervalMs,
    shutdownSignal: config.shutdownSignal,
    shutdownTimeoutMs: config.shutdownTimeoutSeconds * 1000,
    train,
    preTrain: hookOf({ script: config.preTrainScript, args: config.preTrainArgs, runner }),
    postTrain: hookOf({ script: config.postTrainScript, args: config.postTrainArgs, runner }),
    tee: config.tee,
    workerNice: config.workerNice,
    logRulesAllRanks: config.logRulesAllRanks,
  };
}

export function rendezvousOf(request: UpdateRequest): Rendezvous {
  return {
    groupRank: request.rank,
    nnodes: request.nnodes,
    masterAddr: request.master_addr,
    masterPort: request.master_port,
    faultCount: request.faultCount,
  };
}

export function assignmentOf(request: UpdateRequest, progress: Assignment["progress"]): Assignment {
  return {
    assignedRank: request.rank,
    ipVersion: request.ipVersion ?? null,
    spare: request.spare ?? false,
    progress,
  };
}

export const conflict = (detail: string): CommandResult => ({ ok: false, status: 409, detail });
