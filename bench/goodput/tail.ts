import { type Dirent, readdirSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { parseStepLine, type StepLine } from "./progress";

/**
 * Reads the trainer's lines as they are written (the ones `parse` keeps), independent of the operator and
 * the console: every pod's `agent.log` under the job's directory of the local back end (the agents run with `--tee 3`, so each
 * rank's output is copied there as `[default<local rank>]:step=…`), polled every `pollMs`. A line is stamped
 * with the time it was read: up to one poll late, the same for every mode and for both ends of a fault.
 * New pods (pod replacement, full restarts) are found by listing the directory again every poll.
 */
export type LineTail<T> = { lines: T[]; stop(): Promise<void> };

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

function subdirs(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
  return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name));
}

/** `<job dir>/<run uid>/<pod>/agent.log` (server/cluster/local/pod-dirs.ts). */
const logFiles = (jobDir: string): string[] =>
  subdirs(jobDir).flatMap((run) => subdirs(run).map((pod) => path.join(pod, "agent.log")));

type Cursor = { offset: number; rest: string };

async function readNew(file: string, cursor: Cursor): Promise<string[]> {
  const handle = await open(file, "r").catch((error: unknown) => {
    if (missing(error)) return null;
    throw error;
  });
  if (handle === null) return [];
  try {
    const { size } = await handle.stat();
    // A pod made again under the same name starts its log afresh.
    if (size < cursor.offset) Object.assign(cursor, { offset: 0, rest: "" });
    if (size === cursor.offset) return [];
    const buffer = Buffer.alloc(size - cursor.offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, cursor.offset);
    cursor.offset += bytesRead;
    const text = cursor.rest + buffer.toString("utf8", 0, bytesRead);
    const parts = text.split("\n");
    cursor.rest = parts.pop() ?? "";
    return parts;
  } finally {
    await handle.close();
  }
}

export function tailLines<T>(input: {
  dir: string;
  pollMs: number;
  parse: (line: string, at: number, file: string) => T | null;
}): LineTail<T> {
  const cursors = new Map<string, Cursor>();
  const lines: T[] = [];
  let stopped = false;
  const readAll = async (file: string, cursor: Cursor) => {
    const read = await readNew(file, cursor);
    const at = Date.now();
    for (const text of read) {
      const line = input.parse(text, at, file);
      if (line) lines.push(line);
    }
  };
  const pass = async () => {
    for (const file of logFiles(input.dir))
      if (!cursors.has(file)) cursors.set(file, { offset: 0, rest: "" });
    for (const [file, cursor] of cursors) await readAll(file, cursor);
  };
  const loop = (async () => {
    while (!stopped) {
      await pass();
      await new Promise((resolve) => setTimeout(resolve, input.pollMs));
    }
    await pass();
  })();
  return {
    lines,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** The demo trainer's step lines of every pod of the job under `dir`. */
export const tailStepLines = (input: { dir: string; pollMs: number }): LineTail<StepLine> =>
  tailLines({ ...input, parse: parseStepLine });
