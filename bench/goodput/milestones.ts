import path from "node:path";
import type { FaultLoss } from "./progress";

/**
 * Where a fault's downtime goes (pure; no I/O): the milestones of its recovery on the ranks it hit, read
 * from the pods' logs (the agents' JSON lines carry their own time; the trainer's lines carry `at=<epoch
 * ms>`, else the time the benchmark read them) and from the operator's restart row (detected):
 *
 *   last progress → detected → healthy ranks paused (in-process jobs) → victim's process up → victim's
 *   agent READY (in-process jobs) → /start at the victim's agent → state loaded (peer or checkpoint) →
 *   first step → back at the step it had reached (redone steps, after a checkpoint reload)
 *
 * Each milestone is the first one seen at or after the fault's injection on the victim's pod (and local
 * rank, for the trainer's lines); for a node fault, the latest over its victims. Offsets are from the
 * fault's last progress (FaultLoss.progressAt), so the last one is the fault's lost time.
 */

export const MILESTONES = [
  "detected",
  "paused",
  "processUp",
  "ready",
  "started",
  "stateLoaded",
  "firstStep",
  "back",
] as const;
export type MilestoneName = (typeof MILESTONES)[number];

/** What the logs say, per pod (and local rank for a trainer line). */
export type LogEvent = {
  at: number;
  pod: string;
  localRank: number | null;
  kind: "paused" | "processUp" | "ready" | "started" | "stateLoaded";
};

const TEE = /^\[default(\d+)\]:(.*)$/;
const AT = / at=(\d{13})\b/;

function trainerEvent(text: string): LogEvent["kind"] | null {
  if (text.startsWith("training started")) return "processUp";
  if (
    text.startsWith("state from peer") ||
    text.startsWith("resuming from checkpoint") ||
    text.startsWith("no peer answered")
  )
    return "stateLoaded";
  return null;
}

function agentEvent(line: string): { kind: LogEvent["kind"]; at: number } | null {
  if (!line.startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  const { msg, time, after } = parsed as { msg?: unknown; time?: unknown; after?: unknown };
  const at = typeof time === "string" ? Date.parse(time) : Number.NaN;
  if (!Number.isFinite(at)) return null;
  if (msg === "all local ranks at the barrier") return { kind: after === "pause" ? "paused" : "ready", at };
  if (msg === "start") return { kind: "started", at };
  return null;
}

/** The pod a log file belongs to: `<job dir>/<run uid>/<pod>/agent.log`. */
export const podOfLog = (file: string): string => path.basename(path.dirname(file));

/** A line of a pod's agent.log as a milestone, or null. `readAt`: when the benchmark read it. */
export function parseLogEvent(line: string, input: { readAt: number; file: string }): LogEvent | null {
  const pod = podOfLog(input.file);
  const tee = TEE.exec(line);
  if (tee) {
    const kind = trainerEvent(tee[2] as string);
    if (kind === null) return null;
    const stamped = AT.exec(line);
    const at = stamped ? Number(stamped[1]) : input.readAt;
    return { at, pod, localRank: Number(tee[1]), kind };
  }
  const agent = agentEvent(line);
  return agent === null ? null : { ...agent, pod, localRank: null };
}

export type Victim = { pod: string; localRank: number };

/** Pod `<job>-workers-<i>` runs ranks i × ranksPerNode … (the operator ranks pods in order). */
export function victimOf(input: { job: string; rank: number; ranksPerNode: number }): Victim {
  const index = Math.floor(input.rank / input.ranksPerNode);
  return { pod: `${input.job}-workers-${index}`, localRank: input.rank % input.ranksPerNode };
}

export type Breakdown = Partial<Record<MilestoneName, number>>;

const firstAfter = (events: readonly LogEvent[], at: number, match: (event: LogEvent) => boolean) =>
  events.find((event) => event.at >= at && match(event))?.at;

/** The milestones of one victim (absolute times); the pause is job-wide (every other pod's). */
function victimTimes(input: { events: readonly LogEvent[]; victim: Victim; injectedAt: number }): Breakdown {
  const { events, victim, injectedAt } = input;
  const onPod = (kind: LogEvent["kind"]) => (event: LogEvent) =>
    event.pod === victim.pod && event.kind === kind;
  const onRank = (kind: LogEvent["kind"]) => (event: LogEvent) =>
    onPod(kind)(event) && event.localRank === victim.localRank;
  return {
    processUp: firstAfter(events, injectedAt, onRank("processUp")),
    // Its ranks all at the barrier: after start-up (new workers), or after a pause (a rank restarted alone).
    ready: firstAfter(events, injectedAt, (event) => onPod("ready")(event) || onPod("paused")(event)),
    started: firstAfter(events, injectedAt, onPod("started")),
    stateLoaded: firstAfter(events, injectedAt, onRank("stateLoaded")),
  };
}

/** The latest pause of the other pods after the fault (in-process jobs: every healthy rank at the barrier). */
function pausedAt(input: { events: readonly LogEvent[]; victims: readonly Victim[]; injectedAt: number }) {
  const victimPods = new Set(input.victims.map((victim) => victim.pod));
  const firsts = new Map<string, number>();
  for (const event of input.events)
    if (event.kind === "paused" && event.at >= input.injectedAt && !victimPods.has(event.pod))
      if (!firsts.has(event.pod)) firsts.set(event.pod, event.at);
  return firsts.size === 0 ? undefined : Math.max(...firsts.values());
}

const latest = (values: (number | undefined)[]) => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 || known.length < values.length ? undefined : Math.max(...known);
};

/** One fault's milestones as offsets (ms) from its last progress; `detectedAt`: the operator's restart row. */
export function faultBreakdown(input: {
  loss: FaultLoss;
  victims: readonly Victim[];
  events: readonly LogEvent[];
  detectedAt: number | undefined;
}): Breakdown {
  const { loss, victims, events } = input;
  if (loss.progressAt === null) return {};
  const from = loss.progressAt;
  const injectedAt = loss.injectedAt;
  const each = victims.map((victim) => victimTimes({ events, victim, injectedAt }));
  const absolute: Breakdown = {
    detected: input.detectedAt,
    paused: pausedAt({ events, victims, injectedAt }),
    processUp: latest(each.map((times) => times.processUp)),
    ready: latest(each.map((times) => times.ready)),
    started: latest(each.map((times) => times.started)),
    stateLoaded: latest(each.map((times) => times.stateLoaded)),
    // The first step of the recovered training comes after the detection; a line before it is the victim
    // still stepping (a hang's last steps, read after the bench took the fault's last progress).
    firstStep:
      loss.firstStepAt !== null && (input.detectedAt === undefined || loss.firstStepAt >= input.detectedAt)
        ? loss.firstStepAt
        : undefined,
    back: loss.resumedAt ?? undefined,
  };
  const offsets: Breakdown = {};
  for (const name of MILESTONES) {
    const at = absolute[name];
    if (at !== undefined) offsets[name] = at - from;
  }
  return offsets;
}

/** The mean offset of each milestone over the faults that reached it (ms). */
export function meanBreakdown(breakdowns: readonly Breakdown[]): Breakdown {
  const mean: Breakdown = {};
  for (const name of MILESTONES) {
    const values = breakdowns.flatMap((b) => (b[name] === undefined ? [] : [b[name] as number]));
    if (values.length > 0) mean[name] = values.reduce((sum, value) => sum + value, 0) / values.length;
  }
  return mean;
}
