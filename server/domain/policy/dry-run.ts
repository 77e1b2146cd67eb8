import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import { type CompiledLogRule, compileLogRule } from "@/server/domain/log-rules/compile-rule";
import { createRuleEvaluator, type LogState, type RuleEvaluator } from "@/server/domain/log-rules/evaluator";
import { type FaultLogState, logFault } from "@/server/domain/log-rules/fault-reason";
import { prepareLine } from "@/server/domain/log-rules/pattern";
import { parsePythonFloat } from "@/server/domain/log-rules/python-float";
import { decideRecovery } from "@/server/domain/recovery/decide";
import type { Fault } from "@/server/domain/recovery/types";
import { explainRule } from "./explain";
import { lineTimestamps } from "./timestamps";
import type {
  DryRunDeadline,
  DryRunFault,
  DryRunInput,
  DryRunNextAction,
  DryRunResult,
  DryRunRule,
} from "./types";

/**
 * A policy's log rules run over log text with the real evaluator (server/domain/log-rules/evaluator.ts) and
 * a simulated clock. A line's time is when it arrived (`arrivals`, a live rank's output), else the timestamp
 * it prints (timestamps.ts), else `intervalMs` after the line before. The rules start at `rulesStartedAt`
 * (a live rank's attempt start), else at the first line. Between lines the clock ticks each second, as the
 * agent evaluates "no new line". Pasted text is played out after its last line until every window that
 * could still fire has passed, so a hang after the output stops is found and timed; a live rank's output
 * (`endAt`) is played only up to when it was read, and a window still open there is a deadline, not a
 * fault. The first rule to reach HANGING, SLOW or FAULTED is the predicted fault; what the restart policy
 * does next comes from the operator's own decision (server/domain/recovery/decide.ts) over the job's
 * restart history.
 */
export const MAX_DRY_RUN_BYTES = 2 * 1024 * 1024;
export const MAX_DRY_RUN_LINES = 20_000;
/** Matches kept per rule (all are counted). */
export const MAX_MATCHES_SHOWN = 200;
const TICK_MS = 1000;
/** Ticks simulated in all: a gap of days between two lines jumps rather than ticking every second. */
const MAX_TICKS = 20_000;
const DEFAULT_START = Date.UTC(2026, 0, 1);
const FAULT_STATES = new Set<LogState>(["HANGING", "SLOW", "FAULTED"]);

type Running = { compiled: CompiledLogRule; evaluator: RuleEvaluator; result: DryRunRule; state: LogState };

function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const KIND: Record<FaultLogState, Fault["kind"]> = {
  HANGING: "LogHang",
  SLOW: "LogSlow",
  FAULTED: "LogFault",
};
const ACTION: Record<string, DryRunNextAction["action"]> = {
  PLR: "in-place restart",
  POD_REPLACEMENT: "pod replacement",
  JLR: "full job restart",
  FAIL: "fail",
};

function nextActionFor(input: DryRunInput, fault: DryRunFault): DryRunNextAction {
  const decision = decideRecovery({
    runPolicy: input.runPolicy,
    history: (input.history ?? []).map((restart) => ({ ...restart, nodes: [], pods: [] })),
    fault: {
      kind: KIND[fault.state],
      rule: fault.rule,
      at: fault.at,
      pods: ["the rank's pod"],
      ranks: [0],
      node: "its node",
      reason: fault.reason,
    } as Fault,
    now: fault.at,
    cluster: { healthyNodes: ["its node"], spareNodes: [], freeNodes: [] },
  });
  const past = (input.history ?? []).length;
  const history = past === 0 ? "no restart so far" : `${past} restart(s) so far`;
  switch (decision.action) {
    case "FAIL":
      return { action: "fail", reason: decision.reason };
    case "JLR":
      return {
        action: "full job restart",
        reason: `${history}: the window's in-place restarts (numRestartBeforeFullJobRestart) are used up`,
      };
    default:
      return {
        action: ACTION[decision.action] ?? "in-place restart",
        reason: `${history}; a log fault restarts the rank's processes in place (restart ${decision.restartStatus.restartCount} in this window)`,
      };
  }
}

/** The clock ticks (no new line) each second up to `to`; returns the ticks left of `budget`. */
function tickUntil(rules: readonly Running[], clock: { now: number }, to: number, budget: number): number {
  let left = budget;
  while (clock.now + TICK_MS <= to && left > 0) {
    clock.now += TICK_MS;
    left--;
    for (const rule of rules) step(rule, clock.now, null, null);
  }
  if (left <= 0 && clock.now < to) {
    // Out of ticks (a gap of hours): one look at the gap's end, so a window that ran out is still seen.
    clock.now = to;
    for (const rule of rules) step(rule, clock.now, null, null);
  }
  clock.now = Math.max(clock.now, to);
  return left;
}

function recordMatch(rule: Running, at: number, line: string, lineNumber: number | null): void {
  const match = rule.compiled.logPattern.match(prepareLine(line));
  if (!match) return;
  rule.result.matchCount++;
  if (rule.result.matches.length >= MAX_MATCHES_SHOWN) return;
  const hasMetric = rule.compiled.logPattern.groupCount > 0;
  rule.result.matches.push({
    lineNumber: lineNumber ?? 0,
    at,
    text: prepareLine(line),
    value: hasMetric ? parsePythonFloat(match.groups[0]) : null,
  });
}

function step(rule: Running, at: number, line: string | null, lineNumber: number | null): void {
  if (line !== null) recordMatch(rule, at, line, lineNumber);
  const state = rule.evaluator.evaluate(line);
  if (state === rule.state) return;
  rule.state = state;
  rule.result.transitions.push({ at, lineNumber, state });
}

function longestWindowMs(input: DryRunInput): number {
  let longest = 0;
  for (const rule of input.runPolicy.logMonitoringConfiguration ?? [])
    longest = Math.max(
      longest,
      rule.expectedStartCutOffInSeconds ?? 0,
      rule.expectedRecurringFrequencyInSeconds ?? 0,
    );
  return longest * 1000;
}

function firstFault(rules: readonly Running[]): DryRunFault | null {
  let first: DryRunFault | null = null;
  for (const { result } of rules) {
    const transition = result.transitions.find((t) => FAULT_STATES.has(t.state));
    if (!transition || (first !== null && first.at <= transition.at)) continue;
    const state = transition.state as FaultLogState;
    const line =
      transition.lineNumber === null
        ? null
        : (result.matches.find((m) => m.lineNumber === transition.lineNumber)?.text ?? null);
    first = {
      rule: result.name,
      state,
      at: transition.at,
      lineNumber: transition.lineNumber,
      ...logFault(state, [{ rule: result.name, line }]),
    };
  }
  return first;
}

function compileAll(policy: RunPolicy, clock: { now: number }): Running[] {
  return (policy.logMonitoringConfiguration ?? []).map((config) => {
    const compiled = compileLogRule(config);
    if (!compiled.ok) throw new RangeError(compiled.reason);
    const evaluator = createRuleEvaluator({ rule: compiled.rule, now: () => clock.now });
    const result: DryRunRule = {
      name: config.name,
      explanation: explainRule(config),
      matches: [],
      matchCount: 0,
      transitions: [{ at: clock.now, lineNumber: null, state: "WAITING" }],
      finalState: "WAITING",
    };
    return { compiled: compiled.rule, evaluator, result, state: "WAITING" as LogState };
  });
}

function timeNotes(lines: number, timestamped: number, interval: number): string[] {
  if (lines === 0 || timestamped === lines) return [];
  if (timestamped === 0) return [`no line had a timestamp: lines were spaced ${interval / 1000} s apart`];
  return [
    `${lines - timestamped} line(s) without a timestamp were spaced ${interval / 1000} s after the line before`,
  ];
}

/** When each rule still watching a window fires if no matching line comes (start cut-off, recurring). */
function openWindows(rules: readonly Running[], rulesStartedAt: number): DryRunDeadline[] {
  const deadlines: DryRunDeadline[] = [];
  for (const rule of rules) {
    const { config } = rule.compiled;
    const snapshot = rule.evaluator.snapshot();
    if (!snapshot.active || FAULT_STATES.has(snapshot.state)) continue;
    const seconds =
      snapshot.lastMatchAt === null
        ? config.expectedStartCutOffInSeconds
        : config.expectedRecurringFrequencyInSeconds;
    if (seconds === undefined) continue;
    const from = snapshot.lastMatchAt ?? rulesStartedAt;
    deadlines.push({ rule: config.name, state: "HANGING", at: from + seconds * 1000 + TICK_MS });
  }
  return deadlines.sort((a, b) => a.at - b.at);
}

/** The text's lines, within the limits (a RangeError over MAX_DRY_RUN_BYTES; a note past MAX_DRY_RUN_LINES). */
function readLines(text: string, notes: string[]): string[] {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_DRY_RUN_BYTES)
    throw new RangeError(
      `the log text is ${(bytes / 1024 / 1024).toFixed(1)} MB; a dry-run takes at most 2 MB (the last lines of a rank are what matter)`,
    );
  const lines = splitLines(text);
  if (lines.length <= MAX_DRY_RUN_LINES) return lines;
  notes.push(`only the first ${MAX_DRY_RUN_LINES} of ${lines.length} lines were run`);
  return lines.slice(0, MAX_DRY_RUN_LINES);
}

/** Each line's known time (arrival, else printed timestamp, else null) and when the rules start. */
function lineTimes(
  input: DryRunInput,
  lines: readonly string[],
): { times: (number | null)[]; start: number } {
  const stamps = lineTimestamps(lines, new Date(input.startAt ?? DEFAULT_START).getUTCFullYear());
  const times = lines.map((_, index) => input.arrivals?.[index] ?? stamps[index] ?? null);
  const start = input.rulesStartedAt ?? times.find((time) => time !== null) ?? input.startAt ?? DEFAULT_START;
  return { times, start };
}

/** Throws a RangeError naming the limit for text over MAX_DRY_RUN_BYTES or a rule that does not compile. */
export function dryRun(input: DryRunInput): DryRunResult {
  const notes: string[] = [];
  const lines = readLines(input.logText, notes);
  const interval = input.intervalMs ?? 1000;
  const { times, start } = lineTimes(input, lines);
  const clock = { now: start };
  const rules = compileAll(input.runPolicy, clock);
  let ticks = MAX_TICKS;
  lines.forEach((line, index) => {
    const at = Math.max(clock.now, times[index] ?? (index === 0 ? start : clock.now + interval));
    ticks = tickUntil(rules, clock, at, ticks);
    for (const rule of rules) step(rule, clock.now, line, index + 1);
  });
  const lastLineAt = clock.now;
  const live = input.endAt !== undefined;
  const end = input.endAt ?? lastLineAt + longestWindowMs(input) + TICK_MS;
  if (tickUntil(rules, clock, end, ticks) <= 0)
    notes.push(
      "the simulated time was long: past 20,000 one-second ticks, gaps were looked at once, at their end",
    );
  for (const rule of rules) rule.result.finalState = rule.state;
  const timestamped = times.filter((time) => time !== null).length;
  notes.push(...timeNotes(lines.length, timestamped, interval));
  const fault = firstFault(rules);
  if (fault && fault.lineNumber === null && fault.at > lastLineAt && !live)
    notes.push(`the output ended ${Math.round((fault.at - lastLineAt) / 1000)} s before ${fault.rule} fired`);
  return {
    start,
    end: clock.now,
    outputEndedAt: lastLineAt,
    lines: lines.length,
    timestamped,
    rules: rules.map((rule) => rule.result),
    fault,
    nextAction: fault ? nextActionFor(input, fault) : null,
    deadlines: live && !fault ? openWindows(rules, start) : [],
    notes,
  };
}
