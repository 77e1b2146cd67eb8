import type { CompiledLogRule } from "./compile-rule";
import type { LogMonitoringRule, LogRuleOperator } from "./log-rule.schema";
import { prepareLine, type RegexMatch } from "./pattern";
import { parsePythonFloat } from "./python-float";

/**
 * One log rule's evaluator, a port of the HyperPod agent's LogEvaluator
 * (docs/hyperpod-compatibility.md, "Log-rule evaluation"). Pure: the clock is injected (`now()` in
 * milliseconds, e.g. Date.now) and nothing is read or written outside.
 *
 * evaluate(line):                     (line null = "no new line this tick"; the agent calls it every tick)
 *   inactive (stopPattern seen)       -> HEALTHY, forever
 *   logPattern matches                -> remember line + time; faultOnMatch -> FAULTED
 *   stopPattern matches               -> deactivate, HEALTHY
 *   no match yet, start cut-off passed (since the evaluator started)   -> HANGING
 *   a match seen, recurring frequency passed (since the last match)    -> HANGING
 *   no match                          -> previous state
 *   no capture group / threshold / operator -> HEALTHY
 *   metric = float(group 1); slowCount = compare ? min(slowCount + 1, N) : 0; SLOW if slowCount >= N
 *
 * Choices where the agent is silent or accidental:
 * - Time excluded by suspend()/resume() is left out of both windows; while suspended the clock is frozen
 *   (the agent never evaluates then, its threads are stopped).
 * - A cut-off of 0 seconds is a real constraint (the agent tests `is not None`); the windows are strict
 *   (`elapsed > cutoff`).
 * - metricThreshold goes through Python int() like the agent: 2.9 -> 2, -2.9 -> -2.
 * - NaN: Python's nan compares false with every operator (gt, lt, eq, gteq, lteq), so a "nan" metric
 *   always resets slowCount to 0 and yields HEALTHY. inf/-inf compare as ordinary numbers.
 * - Capture that float() rejects, or group 1 not taking part in the match: Python raises, and the agent
 *   catches it and skips the line. The match has already been recorded (line, time), so we do the same:
 *   the match counts for the hang windows, slowCount is untouched, and the previous state is returned.
 */

export type LogState = "WAITING" | "HEALTHY" | "SLOW" | "HANGING" | "FAULTED";

export type Clock = () => number;

export type RuleSnapshot = {
  readonly name: string;
  readonly state: LogState;
  readonly active: boolean;
  readonly suspended: boolean;
  /** The last line logPattern matched (after the MAX_LINE_CHARS cut), null before the first match. */
  readonly lastMatchLine: string | null;
  /** Clock time (ms) of the last match, null before the first match. */
  readonly lastMatchAt: number | null;
  /** The last metric parsed from group 1 (may be NaN or ±Infinity), null before any. */
  readonly lastMetricValue: number | null;
  readonly slowCount: number;
};

export type RuleEvaluator = {
  readonly name: string;
  evaluate(line: string | null): LogState;
  suspend(at?: number): void;
  resume(at?: number): void;
  snapshot(): RuleSnapshot;
};

type Mutable = {
  state: LogState;
  active: boolean;
  suspendedAt: number | null;
  totalSuspendedMs: number;
  lastMatchLine: string | null;
  lastMatchAt: number | null;
  lastMatchEffective: number | null;
  lastMetricValue: number | null;
  slowCount: number;
};

const COMPARE: Record<LogRuleOperator, (value: number, threshold: number) => boolean> = {
  gt: (v, t) => v > t,
  lt: (v, t) => v < t,
  eq: (v, t) => v === t,
  gteq: (v, t) => v >= t,
  lteq: (v, t) => v <= t,
};

const toMs = (seconds: number | undefined): number | null => (seconds === undefined ? null : seconds * 1000);

type Settings = {
  startCutoffMs: number | null;
  recurringMs: number | null;
  dataPoints: number;
  threshold: number | null;
  operator: LogRuleOperator | null;
  startedAt: number;
};

type Context = { rule: CompiledLogRule; settings: Settings; s: Mutable; now: Clock };

function settingsOf(config: LogMonitoringRule, startedAt: number): Settings {
  return {
    startCutoffMs: toMs(config.expectedStartCutOffInSeconds),
    recurringMs: toMs(config.expectedRecurringFrequencyInSeconds),
    dataPoints: config.metricEvaluationDataPoints ?? 1,
    // Python int(): truncation towards zero.
    threshold: config.metricThreshold === undefined ? null : Math.trunc(config.metricThreshold),
    operator: config.operator ?? null,
    startedAt,
  };
}

/** The clock with suspended time taken out; frozen while suspended. */
function clock({ s, now }: Context): { wall: number; effective: number } {
  const wall = s.suspendedAt ?? now();
  return { wall, effective: wall - s.totalSuspendedMs };
}

function set(s: Mutable, state: LogState): LogState {
  s.state = state;
  return state;
}

function recordMatch(ctx: Context, line: string | null): RegexMatch | null {
  if (line === null) return null;
  const m = ctx.rule.logPattern.match(line);
  if (m === null) return null;
  const { wall, effective } = clock(ctx);
  ctx.s.lastMatchLine = prepareLine(line);
  ctx.s.lastMatchAt = wall;
  ctx.s.lastMatchEffective = effective;
  return m;
}

function stopsRule({ rule }: Context, line: string | null): boolean {
  return rule.stopPattern !== null && line !== null && rule.stopPattern.match(line) !== null;
}

function isHanging(ctx: Context): boolean {
  const { settings, s } = ctx;
  const effectiveNow = clock(ctx).effective;
  if (s.lastMatchEffective === null) {
    return settings.startCutoffMs !== null && effectiveNow - settings.startedAt > settings.startCutoffMs;
  }
  return settings.recurringMs !== null && effectiveNow - s.lastMatchEffective > settings.recurringMs;
}

function evaluateMetric({ rule, settings, s }: Context, m: RegexMatch): LogState {
  const { threshold, operator, dataPoints } = settings;
  if (rule.logPattern.groupCount === 0 || threshold === null || operator === null) return "HEALTHY";
  const value = parsePythonFloat(m.groups[0]);
  if (value === null) return s.state;
  s.lastMetricValue = value;
  s.slowCount = COMPARE[operator](value, threshold) ? Math.min(s.slowCount + 1, dataPoints) : 0;
  return s.slowCount >= dataPoints ? "SLOW" : "HEALTHY";
}

function evaluateLine(ctx: Context, line: string | null): LogState {
  const { s } = ctx;
  if (!s.active) return set(s, "HEALTHY");
  const m = recordMatch(ctx, line);
  if (m !== null && ctx.rule.config.faultOnMatch === true) return set(s, "FAULTED");
  if (stopsRule(ctx, line)) {
    s.active = false;
    return set(s, "HEALTHY");
  }
  if (isHanging(ctx)) return set(s, "HANGING");
  if (m === null) return s.state;
  return set(s, evaluateMetric(ctx, m));
}

function snapshotOf(name: string, s: Mutable): RuleSnapshot {
  return {
    name,
    state: s.state,
    active: s.active,
    suspended: s.suspendedAt !== null,
    lastMatchLine: s.lastMatchLine,
    lastMatchAt: s.lastMatchAt,
    lastMetricValue: s.lastMetricValue,
    slowCount: s.slowCount,
  };
}

export function createRuleEvaluator({ rule, now }: { rule: CompiledLogRule; now: Clock }): RuleEvaluator {
  const s: Mutable = {
    state: "WAITING",
    active: true,
    suspendedAt: null,
    totalSuspendedMs: 0,
    lastMatchLine: null,
    lastMatchAt: null,
    lastMatchEffective: null,
    lastMetricValue: null,
    slowCount: 0,
  };
  const ctx: Context = { rule, settings: settingsOf(rule.config, now()), s, now };
  return {
    name: rule.config.name,
    evaluate: (line) => evaluateLine(ctx, line),
    suspend: (at = now()) => {
      if (s.suspendedAt === null) s.suspendedAt = at;
    },
    resume: (at = now()) => {
      if (s.suspendedAt === null) return;
      s.totalSuspendedMs += Math.max(0, at - s.suspendedAt);
      s.suspendedAt = null;
    },
    snapshot: () => snapshotOf(rule.config.name, s),
  };
}
