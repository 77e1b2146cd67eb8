import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** What is said about a local pod whose agent process exited on its own (not removed by the operator). */
export type PodExit = {
  namespace: string;
  job: string;
  pod: string;
  code: number | null;
  signal: string | null;
  /** The last lines the agent process wrote to its stdout/stderr (agent.log). */
  tail: string;
};

const TAIL_BYTES = 4096;
const TAIL_LINES = 5;

/**
 * The last few non-empty lines of a file from byte `from` on (where this attempt's output begins: the
 * file is appended to by every attempt of the pod), reading at most its last 4 KiB; "" when it cannot be
 * read.
 */
export function lastLines(file: string, opts: { lines?: number; from?: number } = {}): string {
  const lines = opts.lines ?? TAIL_LINES;
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const { size } = fstatSync(fd);
    const length = Math.max(0, Math.min(size - (opts.from ?? 0), TAIL_BYTES));
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer
      .toString("utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(-lines)
      .join("\n");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The Warning event's message: how the agent exited and the last lines it wrote. */
export function describeExit(exit: PodExit): string {
  let how = "exited (exit code unknown: its process was not started by this operator)";
  if (exit.signal) how = `was killed by ${exit.signal}`;
  else if (exit.code !== null) how = `exited with code ${exit.code}`;
  const tail = exit.tail === "" ? "" : `; last lines of its output:\n${exit.tail}`;
  return `The agent of pod ${exit.pod} ${how}${tail}`;
}
