import { createWriteStream, type WriteStream } from "node:fs";
import path from "node:path";
import type { Logger } from "../log";
import type { StreamName } from "./managed-process";

/**
 * When each line of a rank's output arrived, written by the agent beside the rank's `stdout.log` and
 * `stderr.log` (`<attempt dir>/<local rank>/arrivals.log`), so that a dry-run of log rules on a running rank
 * can use the times the agent's own rules saw instead of guessing (Rebound's own file: HyperPod's layout and
 * files are unchanged). One entry a line, in the order the agent read them:
 *
 *   s<ms> <stdout lines> <stderr lines>   the rank's rules start (its process started, or an in-process
 *                                         restart gave it new rules), after that many lines of each file
 *   o<ms> / e<ms>                         the next line of stdout.log / stderr.log arrived
 *   x<ms>                                 the rank's process ended
 *
 * Bounded: at most MAX_ARRIVALS line entries after each `s` (a dry-run reads at most 20,000 lines from
 * there); the lines after that are counted, not dated, so the next `s` still says where it starts.
 */
export const ARRIVALS_FILE = "arrivals.log";
export const MAX_ARRIVALS = 50_000;

export type ArrivalLog = {
  rulesStart(at: number): void;
  line(stream: StreamName, at: number): void;
  ended(at: number): void;
  /** Resolves once what was written is on disk. */
  close(): Promise<void>;
};

/** The rank's arrival log in `dir` (created at its first entry, once the rank's folder exists). */
function openArrivalLog(input: { dir: string; logger: Logger }): ArrivalLog {
  let file: WriteStream | null = null;
  let failed = false;
  const counts = { stdout: 0, stderr: 0 };
  let dated = 0;
  const write = (entry: string) => {
    if (failed) return;
    if (file === null) {
      file = createWriteStream(path.join(input.dir, ARRIVALS_FILE), { flags: "a" });
      file.on("error", (error) => {
        failed = true;
        input.logger.warn("cannot write a rank's arrival times", { dir: input.dir, error: String(error) });
      });
    }
    file.write(`${entry}\n`);
  };
  return {
    rulesStart(at) {
      dated = 0;
      write(`s${Math.round(at)} ${counts.stdout} ${counts.stderr}`);
    },
    line(stream, at) {
      counts[stream] += 1;
      if (dated >= MAX_ARRIVALS) return;
      dated += 1;
      write(`${stream === "stdout" ? "o" : "e"}${Math.round(at)}`);
    },
    ended(at) {
      write(`x${Math.round(at)}`);
    },
    close() {
      failed = true;
      const open: WriteStream | null = file;
      return new Promise<void>((resolve) => (open ? open.end(resolve) : resolve()));
    },
  };
}

/** Each local rank's arrival log of one attempt (`<attempt dir>/<local rank>/`), closed with the attempt. */
export type ArrivalRecorder = { of(localRank: number): ArrivalLog; closeAll(): Promise<void> };

export function createArrivalRecorder(input: { attemptDir: string; logger: Logger }): ArrivalRecorder {
  const logs = new Map<number, ArrivalLog>();
  return {
    of(localRank) {
      let log = logs.get(localRank);
      if (!log) {
        log = openArrivalLog({ dir: path.join(input.attemptDir, String(localRank)), logger: input.logger });
        logs.set(localRank, log);
      }
      return log;
    },
    async closeAll() {
      await Promise.all([...logs.values()].map((log) => log.close()));
    },
  };
}

// ── reading ─────────────────────────────────────────────────────────────────────────────────────────────

export type ArrivalEntry = { stream: StreamName; at: number };

/** The entries after the last rules start: where that start is in each file, its lines, and an end. */
export type ArrivalSegment = {
  startedAt: number;
  skip: { stdout: number; stderr: number };
  lines: ArrivalEntry[];
  endedAt: number | null;
};

const ENTRY = /^([soex])(\d{1,16})(?: (\d{1,12}) (\d{1,12}))?$/;

/** The index of the last `s` entry; -1 when there is none. */
function lastStart(entries: readonly string[]): number {
  for (let index = entries.length - 1; index >= 0; index -= 1)
    if (ENTRY.exec(entries[index] ?? "")?.[3] !== undefined) return index;
  return -1;
}

/** Adds one entry after the start to the segment; false where the segment ends (a torn entry, a new start). */
function addEntry(segment: ArrivalSegment, entry: string): boolean {
  const match = ENTRY.exec(entry);
  if (!match || match[1] === "s") return false;
  const at = Number(match[2]);
  if (match[1] === "x") segment.endedAt = at;
  else segment.lines.push({ stream: match[1] === "o" ? "stdout" : "stderr", at });
  return true;
}

/**
 * The last segment (from the last `s` entry) of an arrival log's text; null when it has none. A torn
 * or unknown entry ends the segment there (what follows cannot be lined up with the files' lines).
 */
export function lastArrivalSegment(text: string): ArrivalSegment | null {
  const entries = text.split("\n");
  const start = lastStart(entries);
  const head = ENTRY.exec(entries[start] ?? "");
  if (!head) return null;
  const segment: ArrivalSegment = {
    startedAt: Number(head[2]),
    skip: { stdout: Number(head[3]), stderr: Number(head[4]) },
    lines: [],
    endedAt: null,
  };
  for (const entry of entries.slice(start + 1)) if (!addEntry(segment, entry)) break;
  return segment;
}
