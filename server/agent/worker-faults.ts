import { constants } from "node:os";
import type { ProcessExit } from "./managed-process";
import type { Fault } from "./state";

/**
 * Fault reasons and messages for processes the agent runs
 * (docs/hyperpod-compatibility.md, "The agent protocol"). The crash text is the agent's: "A training worker
 * process has crashed:\n    Local Rank {r} exited with code {c} due to: {msg}", where {c} is the exit code
 * or, as torchelastic reports it, minus the signal number, and {msg} is, in order: the spawn error, "Signal 9
 * (SIGKILL) received by PID 1234", the worker's last stderr line, or torchelastic's pointer to its error
 * docs.
 */

export const WORKER_CRASH = "WorkerCrash";
/** A failing pre/post-train script or an agent-side failure (the agent's "unknown" worker fault). */
export const WORKER_FAULT = "WorkerFault";

const NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html";

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}

export function exitCodeOf(exit: ProcessExit): number {
  return exit.signal !== null ? -signalNumber(exit.signal) : (exit.code ?? -1);
}

function exitCause(exit: ProcessExit, pid: number | null): string {
  if (exit.spawnError !== null) return exit.spawnError;
  if (exit.signal !== null) {
    return `Signal ${signalNumber(exit.signal)} (${exit.signal}) received by PID ${pid ?? "?"}`;
  }
  return exit.lastStderrLine?.trim() || NO_TRACEBACK;
}

export function workerCrashFault(input: { localRank: number; pid: number | null; exit: ProcessExit }): Fault {
  const { localRank, pid, exit } = input;
  return {
    reason: WORKER_CRASH,
    message: `A training worker process has crashed:\n    Local Rank ${localRank} exited with code ${exitCodeOf(exit)} due to: ${exitCause(exit, pid)}`,
    at: exit.at,
  };
}

export type HookPhase = "pre_train" | "post_train";

export function hookFault(input: {
  phase: HookPhase;
  script: string;
  pid: number | null;
  exit: ProcessExit;
}): Fault {
  const { phase, script, pid, exit } = input;
  const name = phase === "pre_train" ? "pre-train" : "post-train";
  return {
    reason: WORKER_FAULT,
    message: `The ${name} script ${script} exited with code ${exitCodeOf(exit)} due to: ${exitCause(exit, pid)}`,
    at: exit.at,
  };
}
