import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { MAX_LINE_CHARS } from "../domain/log-rules/pattern";
import type { Logger } from "../log";
import { type ProcessEnv, spawnEnv } from "./env";
import { createLineSplitter } from "./line-splitter";
import { lowerPriority } from "./priority";
import { signalGroupOnly, signalProcessGroup } from "./process-group";
import type { Command } from "./script-command";

/**
 * One child process (a worker or a pre/post-train script) in its own process group, its stdout and
 * stderr copied byte for byte to `<logDir>/stdout.log` and `stderr.log` and cut into lines (at most
 * MAX_LINE_CHARS + 1 characters each, so the rule engine still sees that a line was cut).
 */

export type StreamName = "stdout" | "stderr";

export type ProcessExit = {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Epoch ms of the exit (or of the failed spawn). */
  at: number;
  /** Set when the process could not be started (e.g. "spawn python3 ENOENT"). */
  spawnError: string | null;
  /** The last non-empty stderr line, for crash messages. */
  lastStderrLine: string | null;
};

export type ManagedProcess = {
  readonly pid: number | null;
  signal(signal: NodeJS.Signals): void;
  readonly exited: Promise<ProcessExit>;
};

export type SpawnInput = {
  command: Command;
  /** Run the process this much nicer than the agent (0-19). */
  nice?: number;
  env: ProcessEnv;
  logDir: string;
  onLine: (line: string, stream: StreamName) => void;
  logger: Logger;
  now: () => number;
};

/** After "exit", how long to wait for the pipes to drain (a grandchild may hold them open forever). */
const CLOSE_GRACE_MS = 100;
const STDERR_TAIL_CHARS = 1024;

function pipeStream(input: { source: Readable; file: WriteStream; onLine: (line: string) => void }): void {
  const decoder = new StringDecoder("utf8");
  const splitter = createLineSplitter({ maxChars: MAX_LINE_CHARS + 1, onLine: input.onLine });
  input.source.pipe(input.file);
  input.source.on("data", (chunk: Buffer) => splitter.push(decoder.write(chunk)));
  input.source.on("end", () => {
    splitter.push(decoder.end());
    splitter.end();
  });
}

function openLog(input: { dir: string; name: string; logger: Logger }): WriteStream {
  const file = createWriteStream(path.join(input.dir, input.name), { flags: "a" });
  file.on("error", (error) =>
    input.logger.error("cannot write worker log", { file: file.path, error: String(error) }),
  );
  return file;
}

const SPAWN_ERROR_CODES: Record<string, number> = { ENOENT: 127, EACCES: 126 };

function watchExit(child: ChildProcess, input: { now: () => number; stderrTail: () => string | null }) {
  return new Promise<ProcessExit>((resolve) => {
    let closed = false;
    child.on("close", () => {
      closed = true;
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      const code = SPAWN_ERROR_CODES[error.code ?? ""] ?? 1;
      resolve({ code, signal: null, at: input.now(), spawnError: error.message, lastStderrLine: null });
    });
    child.on("exit", (code, signal) => {
      const at = input.now();
      const finish = () =>
        resolve({ code, signal, at, spawnError: null, lastStderrLine: input.stderrTail() });
      if (closed) finish();
      else {
        const timer = setTimeout(finish, CLOSE_GRACE_MS);
        child.once("close", () => {
          clearTimeout(timer);
          finish();
        });
      }
    });
  });
}

export async function spawnManaged(input: SpawnInput): Promise<ManagedProcess> {
  const { command, logDir, logger } = input;
  await mkdir(logDir, { recursive: true });
  const child = spawn(command.command, command.args, {
    env: spawnEnv(input.env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Below the agent (and the operator, on one machine), so a burst of workers starting or stopping cannot
  // starve the control plane that restarts them.
  const lowered = child.pid !== undefined && input.nice ? lowerPriority(child.pid, input.nice) : null;
  if (lowered !== null)
    logger.warn("could not lower a worker's priority", { pid: child.pid, error: lowered });
  let lastStderrLine: string | null = null;
  const stdout = openLog({ dir: logDir, name: "stdout.log", logger });
  const stderr = openLog({ dir: logDir, name: "stderr.log", logger });
  pipeStream({
    source: child.stdout as Readable,
    file: stdout,
    onLine: (line) => input.onLine(line, "stdout"),
  });
  pipeStream({
    source: child.stderr as Readable,
    file: stderr,
    onLine: (line) => {
      if (line.trim() !== "") lastStderrLine = line.slice(0, STDERR_TAIL_CHARS);
      input.onLine(line, "stderr");
    },
  });
  const exited = watchExit(child, { now: input.now, stderrTail: () => lastStderrLine });
  let hasExited = false;
  child.once("exit", () => {
    hasExited = true;
  });
  const pid = child.pid ?? null;
  return {
    pid,
    signal: (signal) => {
      if (pid === null) return;
      try {
        // Once the leader is gone its pid may be reused: only what is left of its group is signalled.
        if (hasExited) signalGroupOnly(pid, signal);
        else signalProcessGroup(pid, signal);
      } catch (error) {
        logger.warn("cannot signal worker", { pid, signal, error: String(error) });
      }
    },
    exited,
  };
}
