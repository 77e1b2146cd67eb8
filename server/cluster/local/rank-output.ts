import type { FileHandle } from "node:fs/promises";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import {
  ARRIVALS_FILE,
  type ArrivalSegment,
  lastArrivalSegment,
  MAX_ARRIVALS,
} from "@/server/agent/arrivals";
import type { JobRef } from "@/server/cluster/types";
import {
  RANK_OUTPUT_LIMITS,
  type RankOutput,
  type RankOutputLine,
  withinLimits,
} from "@/server/domain/operator-api/rank-output";
import { AppError } from "@/server/errors";
import { requireName } from "../names";
import { podDir } from "./pod-dirs";
import { currentAttempt, openInside, readLines, readTail } from "./rank-files";

/**
 * A local rank's output since its current attempt started, with when each line arrived: the pod's agent
 * keeps each rank's stdout.log and stderr.log in its attempt folder and, beside them, when each line
 * arrived and when the rank's rules started (server/agent/arrivals.ts). The lines are put back in the
 * order the agent read them. Without arrival times (HyperPod's hyperpodrun, or an agent older than them)
 * the rank's stdout.log is read alone, undated, from the attempt's start (the folder's creation).
 */

/** An arrival log's last segment is at most MAX_ARRIVALS entries of ≤ 18 bytes, plus its start. */
const ARRIVALS_TAIL_BYTES = (MAX_ARRIVALS + 8) * 18;

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

type RankFiles = { stdout: FileHandle | null; stderr: FileHandle | null; arrivals: FileHandle | null };

const empty = (readAt: number, attempt: number | null): RankOutput => ({
  attempt,
  startedAt: null,
  endedAt: null,
  readAt,
  lines: [],
  completeUntil: readAt,
  overLimit: false,
  timing: "none",
});

/** Lines of both files in the order they arrived, each with its time; stops where a file has no more. */
async function timedLines(files: RankFiles, segment: ArrivalSegment, readAt: number) {
  // Lines that arrived while this read went on are past `readAt`: left for the next read, so that no line
  // is later than the time the output is read up to.
  const entries = segment.lines.filter((entry) => entry.at <= readAt).slice(0, RANK_OUTPUT_LIMITS.lines + 1);
  const wanted = (stream: "stdout" | "stderr") => entries.filter((entry) => entry.stream === stream).length;
  const read = (stream: "stdout" | "stderr") => {
    const handle = files[stream];
    return handle ? readLines(handle, { skip: segment.skip[stream], count: wanted(stream) }) : [];
  };
  const [stdout, stderr] = await Promise.all([read("stdout"), read("stderr")]);
  const next = { stdout: 0, stderr: 0 };
  const lines: RankOutputLine[] = [];
  let completeUntil = readAt;
  for (const entry of entries) {
    const text = (entry.stream === "stdout" ? stdout : stderr)[next[entry.stream]];
    if (text === undefined) {
      // In the file later than its arrival was written down: known to be there, not read now.
      completeUntil = entry.at;
      break;
    }
    next[entry.stream] += 1;
    lines.push({ text, at: entry.at });
  }
  const { kept, left } = withinLimits(lines);
  const firstLeft = lines[kept.length]?.at;
  if (firstLeft != null) completeUntil = firstLeft;
  const overLimit = left > 0 || segment.lines.length > RANK_OUTPUT_LIMITS.lines;
  return { lines: kept, completeUntil, overLimit };
}

/** stdout.log alone, undated, from the start (an agent that records no arrival times). */
async function untimedLines(handle: FileHandle | null) {
  if (!handle) return { lines: [], overLimit: false };
  const texts = await readLines(handle, { skip: 0, count: RANK_OUTPUT_LIMITS.lines + 1 });
  const { kept, left } = withinLimits(texts.map((text) => ({ text, at: null })));
  return { lines: kept, overLimit: left > 0 };
}

async function openRankFiles(pod: string, rankDir: string): Promise<RankFiles> {
  const [stdout, stderr, arrivals] = await Promise.all(
    ["stdout.log", "stderr.log", ARRIVALS_FILE].map((name) => openInside(pod, path.join(rankDir, name))),
  );
  return { stdout: stdout ?? null, stderr: stderr ?? null, arrivals: arrivals ?? null };
}

async function readFiles(files: RankFiles, input: { rankDir: string; attempt: number; readAt: number }) {
  const segment = files.arrivals
    ? lastArrivalSegment(await readTail(files.arrivals, ARRIVALS_TAIL_BYTES))
    : null;
  if (segment) {
    const timed = await timedLines(files, segment, input.readAt);
    const { startedAt, endedAt } = segment;
    return {
      ...empty(input.readAt, input.attempt),
      ...timed,
      startedAt,
      endedAt,
      timing: "arrivals" as const,
    };
  }
  const { birthtimeMs, mtimeMs } = await stat(input.rankDir);
  const untimed = await untimedLines(files.stdout);
  return {
    ...empty(input.readAt, input.attempt),
    ...untimed,
    startedAt: birthtimeMs > 0 ? birthtimeMs : mtimeMs,
  };
}

export async function readRankOutput(opts: {
  podsDir: string;
  ref: JobRef;
  pod: string;
  /** The job's uid: its run's directory (pod-dirs.ts). */
  uid?: string;
  localRank: number;
  now?: () => number;
}): Promise<RankOutput> {
  const namespace = requireName("namespace", opts.ref.namespace);
  const pod = requireName("pod", opts.pod);
  const run = opts.uid === undefined ? undefined : { job: requireName("pod", opts.ref.name), uid: opts.uid };
  if (!Number.isInteger(opts.localRank) || opts.localRank < 0 || opts.localRank > 65_535)
    throw new AppError(
      "INVALID",
      `localRank: expected a whole number from 0 to 65535, got ${opts.localRank}`,
    );
  const readAt = (opts.now ?? Date.now)();
  const root = await realpath(opts.podsDir).catch((error: unknown) => {
    if (missing(error)) return null;
    throw error;
  });
  if (root === null) return empty(readAt, null);
  const dir = podDir(root, { namespace, pod, run });
  const current = await currentAttempt(path.join(dir, "logs"));
  if (current === null) return empty(readAt, null);
  const rankDir = path.join(current.dir, String(opts.localRank));
  const files = await openRankFiles(dir, rankDir);
  try {
    return await readFiles(files, { rankDir, attempt: current.attempt, readAt });
  } catch (error) {
    if (missing(error)) return empty(readAt, current.attempt);
    throw error;
  } finally {
    await Promise.all(Object.values(files).map((handle) => handle?.close()));
  }
}
