import { open } from "node:fs/promises";
import { LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import type { JobRef } from "@/server/cluster/types";
import { type Summary, summarize } from "../recovery/stats";
import type { BenchEnvironment } from "./environment";

/**
 * The silence scenario (`--silent-percent P`, issue 18): after the quiet window, P % of the job's pods have
 * their stand-in agent frozen (as a SIGSTOPped agent: its watch stream stays open and sends nothing, its
 * HTTP requests hang), spread evenly over SPREAD_MS. Each is timed from its freeze (the agents' process
 * clock, this machine's) to the operator's log line `"msg":"agent silent"` for that pod (its `detectedAt`,
 * the operator's clock, the same machine's). A pod judged silent that was not frozen, or before it was, is
 * a false silence.
 */
export const SPREAD_MS = 10_000;
/** How long after the last freeze the bench waits for the last "agent silent" line. */
export const DETECT_WAIT_MS = 10_000;
export const SILENT_MSG = "agent silent";

export type SilenceLine = {
  namespace: string;
  pod: string;
  lastHeardAt: number;
  detectedAt: number;
  /** Why the operator gave the agent the unreachable timeout instead of the silence threshold, if it did. */
  lenient: string | null;
};
export type Frozen = { namespace: string; pod: string; frozenAt: number };

export type SilenceFigures = {
  silenced: number;
  detected: number;
  /** Freeze → "agent silent" logged, ms, one per detected pod. */
  detect: Summary;
  /** Freeze → the operator last heard from the agent (negative: heard before the freeze), ms. */
  lastHeard: Summary;
  falseSilences: number;
  /** How many distinct pods those false silences were about. */
  falseSilentPods: number;
  /** Pods judged silent that were not frozen (or before they were), e.g. "ns/pod". */
  falsePods: string[];
  /** Frozen pods never reported silent. */
  missed: string[];
  /** Frozen pods judged leniently, by the line's `lenient` reason ("overdue with many", "settling"). */
  lenient: Record<string, number>;
};

const key = (entry: { namespace: string; pod: string }) => `${entry.namespace}/${entry.pod}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function jsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** One log line as an "agent silent" report, or null. */
function silenceLine(line: string): SilenceLine | null {
  if (!line.includes(SILENT_MSG)) return null;
  const parsed = jsonLine(line);
  if (!isRecord(parsed) || parsed.msg !== SILENT_MSG) return null;
  const { namespace, pod, lastHeardAt, detectedAt, lenient } = parsed;
  if (typeof namespace !== "string" || typeof pod !== "string" || typeof detectedAt !== "number") return null;
  return {
    namespace,
    pod,
    detectedAt,
    lastHeardAt: typeof lastHeardAt === "number" ? lastHeardAt : Number.NaN,
    lenient: typeof lenient === "string" ? lenient : null,
  };
}

/** The operator's "agent silent" lines (JSON, one per line); anything else in the log is skipped. */
export function parseSilenceLines(lines: readonly string[]): SilenceLine[] {
  return lines.flatMap((line) => silenceLine(line) ?? []);
}

/** How many of `pods` are frozen at `percent` %: none at 0, else at least one. */
export function silentCount(pods: number, percent: number): number {
  if (!(percent > 0) || pods <= 0) return 0;
  return Math.min(pods, Math.max(1, Math.round((pods * percent) / 100)));
}

/** When each of `count` freezes happens, ms after the first, evenly over `spreadMs`. */
export function freezeOffsets(count: number, spreadMs: number): number[] {
  return Array.from({ length: count }, (_, index) => (count <= 1 ? 0 : (index * spreadMs) / count));
}

/** `count` of `names`, at random, without repeats. */
export function pickSilent(names: readonly string[], count: number, random = Math.random): string[] {
  const pool = [...names];
  for (let index = pool.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [pool[index], pool[other]] = [pool[other] as string, pool[index] as string];
  }
  return pool.slice(0, count);
}

/** Each frozen pod's first "agent silent" line at or after its freeze; every other line is false. */
function classify(frozen: readonly Frozen[], lines: readonly SilenceLine[]) {
  const frozenAt = new Map(frozen.map((entry) => [key(entry), entry.frozenAt]));
  const first = new Map<string, SilenceLine>();
  const falsePods: string[] = [];
  for (const line of [...lines].sort((a, b) => a.detectedAt - b.detectedAt)) {
    const at = frozenAt.get(key(line));
    if (at === undefined || line.detectedAt < at) falsePods.push(key(line));
    else if (!first.has(key(line))) first.set(key(line), line);
  }
  return { first, falsePods };
}

export function silenceFigures(frozen: readonly Frozen[], lines: readonly SilenceLine[]): SilenceFigures {
  const { first, falsePods } = classify(frozen, lines);
  const detectMs: number[] = [];
  const lastHeardMs: number[] = [];
  const lenient: Record<string, number> = {};
  for (const entry of frozen) {
    const line = first.get(key(entry));
    if (!line) continue;
    if (line.lenient !== null) lenient[line.lenient] = (lenient[line.lenient] ?? 0) + 1;
    detectMs.push(line.detectedAt - entry.frozenAt);
    if (Number.isFinite(line.lastHeardAt)) lastHeardMs.push(line.lastHeardAt - entry.frozenAt);
  }
  return {
    silenced: frozen.length,
    detected: detectMs.length,
    detect: summarize(detectMs),
    lastHeard: summarize(lastHeardMs),
    falseSilences: falsePods.length,
    falseSilentPods: new Set(falsePods).size,
    falsePods,
    missed: frozen.filter((entry) => !first.has(key(entry))).map(key),
    lenient,
  };
}

/** Reads a growing log file a piece at a time: each call returns the complete lines added since the last. */
export function followLog(path: string) {
  let offset = 0;
  let partial = "";
  return async (): Promise<string[]> => {
    const file = await open(path, "r").catch(() => null);
    if (!file) return [];
    try {
      const { size } = await file.stat();
      if (size <= offset) return [];
      const buffer = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const lines = (partial + buffer.subarray(0, bytesRead).toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      return lines;
    } finally {
      await file.close();
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job's live pods by name (the bench's own watch). */
function jobPods(env: BenchEnvironment, ref: JobRef): string[] {
  return env.pods.informer
    .list()
    .filter((pod) => pod.metadata?.labels?.[LABEL_JOB] === ref.name && !pod.metadata?.deletionTimestamp)
    .flatMap((pod) => (pod.metadata?.name ? [pod.metadata.name] : []));
}

/**
 * Freezes `percent` % of the job's pods' agents over SPREAD_MS and waits until the operator has logged each
 * one silent, or DETECT_WAIT_MS past the last freeze. Returns the freezes (the figures are taken from the
 * whole log at the end, with the false silences of the whole run).
 */
export async function freezeAgents(input: {
  env: BenchEnvironment;
  ref: JobRef;
  percent: number;
  log: (line: string) => void;
}): Promise<Frozen[]> {
  const { env, ref } = input;
  const names = jobPods(env, ref);
  const victims = pickSilent(names, silentCount(names.length, input.percent));
  const offsets = freezeOffsets(victims.length, SPREAD_MS);
  const follow = followLog(env.operator.logFile);
  await follow(); // from here on
  const heard = new Set<string>();
  const listen = async () => {
    for (const line of parseSilenceLines(await follow())) heard.add(key(line));
  };
  input.log(`freezing ${victims.length} of ${names.length} pods' agents over ${SPREAD_MS / 1000} s`);
  const began = Date.now();
  const frozen: Frozen[] = [];
  for (const [index, pod] of victims.entries()) {
    await sleep(began + (offsets[index] ?? 0) - Date.now());
    const reply = await env.agents.freeze({ namespace: ref.namespace, pod });
    if (reply.ok) frozen.push({ namespace: ref.namespace, pod, frozenAt: reply.at });
    else input.log(`freeze: no stand-in agent for ${pod}`);
    await listen();
  }
  const deadline = Date.now() + DETECT_WAIT_MS;
  while (Date.now() < deadline && frozen.some((entry) => !heard.has(key(entry)))) {
    await sleep(200);
    await listen();
  }
  const detected = frozen.filter((entry) => heard.has(key(entry))).length;
  input.log(`silence: ${detected} of ${frozen.length} frozen agents logged silent by the operator`);
  return frozen;
}

/** Every "agent silent" line in the operator's whole log. */
export async function silenceLinesOf(logFile: string): Promise<SilenceLine[]> {
  return parseSilenceLines(await followLog(logFile)());
}
