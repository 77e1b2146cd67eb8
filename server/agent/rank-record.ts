import { encodeJsonFloat, type RankRunState, type RankStatus } from "@/server/domain/agent-api/protocol";
import { type RankLogState, WAITING_RANK } from "../domain/log-rules/aggregate";
import { isProgressLine } from "../domain/log-rules/progress";
import type { RankLogMonitor } from "../domain/log-rules/rank-monitor";
import { parseLineMetrics } from "./line-metrics";
import type { ManagedProcess, ProcessExit } from "./managed-process";
import {
  createProgressTrack,
  type ProgressTrack,
  recordProgress,
  usualProgressIntervalMs,
} from "./progress-track";
import { isoTimestamp } from "./state";

/**
 * What the agent knows about one local rank of the current attempt: its process, how it ended, its last
 * output line and the progress parsed from it, and its log-rule monitor. Every local rank's rules are
 * evaluated and reported; only `watched` ranks' rules can fault the attempt (attempt-context.ts).
 *
 * Suspect: a running rank that printed at least one line and then nothing for longer than `silenceMs`
 * (the shortest expectedRecurringFrequencyInSeconds of the rules; never without one). It is reported, not
 * acted on: `suspectSince` is when the silence passed the window (last line + window).
 *
 * Progress: when the rank last printed a progress line and its usual interval (./progress-track.ts), for
 * the console's "no progress for N s"; reported, never acted on.
 */

export type RankRecord = {
  readonly localRank: number;
  /** Global rank; an in-process-restart agent learns it only at `job_start` (ipr/ipr-agent.ts). */
  rank: number;
  /** How many /start attempts this agent ran before this one (0 on the first). */
  readonly restarts: number;
  /** Replaced when an in-process-restart agent (re)starts or pauses log monitoring. */
  monitor: RankLogMonitor | null;
  process: ManagedProcess | null;
  state: RankRunState;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  lastLine: string | null;
  lastLineAt: number | null;
  step: number | null;
  loss: number | null;
  throughput: number | null;
  logState: RankLogState;
  /** This rank's rules can fault the attempt. */
  readonly watched: boolean;
  readonly silenceMs: number | null;
  suspectSince: number | null;
  /** Progress lines of the current process. */
  progress: ProgressTrack;
};

/** `/status` shows at most this much of a rank's last line. */
export const STATUS_LINE_CHARS = 1024;

export function createRankRecord(input: {
  localRank: number;
  rank: number;
  restarts: number;
  monitor: RankLogMonitor | null;
  /** Default true (the rank's rules count); attempt-context.ts passes local rank 0 only unless opted in. */
  watched?: boolean;
  silenceMs?: number | null;
}): RankRecord {
  return {
    ...input,
    watched: input.watched ?? true,
    silenceMs: input.silenceMs ?? null,
    ...noProcessYet(),
  };
}

/** What a record knows before its process starts: no process, no output, no rule state. */
function noProcessYet() {
  return {
    suspectSince: null,
    progress: createProgressTrack(),
    process: null,
    state: "starting",
    exitCode: null,
    signal: null,
    lastLine: null,
    lastLineAt: null,
    step: null,
    loss: null,
    throughput: null,
    logState: WAITING_RANK,
  } satisfies Partial<RankRecord>;
}

/** Records a line of output and feeds it to the rank's rules at once; returns the rank's rule state. */
export function recordLine(record: RankRecord, input: { line: string; at: number }): RankLogState {
  recordOutput(record, input);
  if (record.monitor !== null) record.logState = record.monitor.onLine(input.line);
  return record.logState;
}

/** Records a line of output (last line, progress, silence); its rules are run by rule-queue.ts. */
export function recordOutput(record: RankRecord, input: { line: string; at: number }): void {
  record.lastLine = input.line.slice(0, STATUS_LINE_CHARS);
  record.lastLineAt = input.at;
  record.suspectSince = null;
  const progress = isProgressLine(input.line);
  if (progress) recordProgress(record.progress, input.at);
  const metrics = parseLineMetrics(input.line, progress);
  if (metrics.step !== undefined) record.step = metrics.step;
  if (metrics.loss !== undefined) record.loss = metrics.loss;
  if (metrics.throughput !== undefined) record.throughput = metrics.throughput;
}

/**
 * The rank's record made ready for a new process of the same attempt (a rank restarted alone: see
 * restartRank in launcher.ts): what it knew of the old process is dropped, and so are its rules until the
 * agent sets them again (the new process waits at the in-process barrier first).
 */
export function resetForNewProcess(record: RankRecord): void {
  record.monitor?.suspend();
  Object.assign(record, { monitor: null, ...noProcessYet() });
}

export function tickRank(record: RankRecord, now: number): RankLogState {
  if (record.monitor !== null && record.state === "running") record.logState = record.monitor.tick();
  updateSuspect(record, now);
  return record.logState;
}

/** Marks a running rank suspect once its silence since its last line passes the window; clears it otherwise. */
export function updateSuspect(record: RankRecord, now: number): void {
  const { lastLineAt, silenceMs } = record;
  const silent =
    record.state === "running" && lastLineAt !== null && silenceMs !== null && now - lastLineAt > silenceMs;
  record.suspectSince = silent ? (record.suspectSince ?? lastLineAt + silenceMs) : null;
}

export function isFailedExit(exit: ProcessExit): boolean {
  return exit.signal !== null || exit.code !== 0;
}

const nullableFloat = (value: number | null) => (value === null ? null : encodeJsonFloat(value));
const nullableIso = (ms: number | null) => (ms === null ? null : isoTimestamp(ms));

export function rankStatus(record: RankRecord): RankStatus {
  const evaluators = record.monitor?.snapshot().evaluators ?? [];
  return {
    local_rank: record.localRank,
    rank: record.rank,
    pid: record.process?.pid ?? null,
    state: record.state,
    exit_code: record.exitCode,
    signal: record.signal,
    last_line: record.lastLine,
    last_line_at: nullableIso(record.lastLineAt),
    step: record.step,
    loss: nullableFloat(record.loss),
    throughput: nullableFloat(record.throughput),
    rule_states: Object.fromEntries(evaluators.map((e) => [e.name, e.state])),
    rule_metrics: Object.fromEntries(evaluators.map((e) => [e.name, nullableFloat(e.lastMetricValue)])),
    restarts: record.restarts,
    suspect: record.suspectSince !== null,
    suspect_since: record.suspectSince === null ? null : isoTimestamp(record.suspectSince),
    log_watched: record.watched,
    last_progress_at: nullableIso(record.progress.lastAt),
    progress_interval_ms: usualProgressIntervalMs(record.progress),
  };
}
