import { type RankLogState, WAITING_RANK } from "../domain/log-rules/aggregate";
import type { RankLogMonitor } from "../domain/log-rules/rank-monitor";
import { parseLineMetrics } from "./line-metrics";
import type { ManagedProcess, ProcessExit } from "./managed-process";
import { encodeJsonFloat, type RankRunState, type RankStatus } from "./protocol";
import { isoTimestamp } from "./state";

/**
 * What the agent knows about one local rank of the current attempt: its process, how it ended, its last
 * output line and the progress parsed from it, and its log-rule monitor (every local rank is monitored).
 */

export type RankRecord = {
  readonly localRank: number;
  readonly rank: number;
  /** How many /start attempts this agent ran before this one (0 on the first). */
  readonly restarts: number;
  readonly monitor: RankLogMonitor | null;
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
};

/** `/status` shows at most this much of a rank's last line. */
export const STATUS_LINE_CHARS = 1024;

export function createRankRecord(input: {
  localRank: number;
  rank: number;
  restarts: number;
  monitor: RankLogMonitor | null;
}): RankRecord {
  return {
    ...input,
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
  };
}

/** Records a line of output and feeds it to the rank's rules; returns the rank's rule state. */
export function recordLine(record: RankRecord, input: { line: string; at: number }): RankLogState {
  record.lastLine = input.line.slice(0, STATUS_LINE_CHARS);
  record.lastLineAt = input.at;
  const metrics = parseLineMetrics(input.line);
  if (metrics.step !== undefined) record.step = metrics.step;
  if (metrics.loss !== undefined) record.loss = metrics.loss;
  if (metrics.throughput !== undefined) record.throughput = metrics.throughput;
  if (record.monitor !== null) record.logState = record.monitor.onLine(input.line);
  return record.logState;
}

export function tickRank(record: RankRecord): RankLogState {
  if (record.monitor !== null && record.state === "running") record.logState = record.monitor.tick();
  return record.logState;
}

export function isFailedExit(exit: ProcessExit): boolean {
  return exit.signal !== null || exit.code !== 0;
}

const nullableFloat = (value: number | null) => (value === null ? null : encodeJsonFloat(value));

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
    last_line_at: record.lastLineAt === null ? null : isoTimestamp(record.lastLineAt),
    step: record.step,
    loss: nullableFloat(record.loss),
    throughput: nullableFloat(record.throughput),
    rule_states: Object.fromEntries(evaluators.map((e) => [e.name, e.state])),
    rule_metrics: Object.fromEntries(evaluators.map((e) => [e.name, nullableFloat(e.lastMetricValue)])),
    restarts: record.restarts,
  };
}
