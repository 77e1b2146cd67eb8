import { aggregateRuleStates, type RankLogState, rankLogFault, WAITING_RANK } from "./aggregate";
import { compileLogRule } from "./compile-rule";
import {
  type Clock,
  createRuleEvaluator,
  type LogState,
  type RuleEvaluator,
  type RuleSnapshot,
} from "./evaluator";
import type { LogFault } from "./fault-reason";
import type { LogMonitoringRule } from "./log-rule.schema";

/**
 * The log rules of one local rank: one evaluator per rule, every rule sees every line, and the rank
 * state reported upward follows the agent's LogAgent:
 * - the reported state (and its {rule: line} list) changes only when the aggregated state changes, so a
 *   second rule that starts hanging while the rank already is HANGING does not rewrite the report;
 * - FAULTED is terminal until suspend() (the agent's transition table has no way out of it);
 * - suspend() is the agent's stop(): evaluators stop their clocks and the report goes back to WAITING;
 *   resume() is start(). Lines and ticks received while suspended are ignored (the agent is not reading).
 * - every rule sees every line. (In the agent, a rule whose capture float() rejects raises, and the
 *   rest of that line's rules are skipped; we do not copy that accident.)
 * - tick() evaluates "no new line". (The agent evaluates "" at end of file once the file exists, so a
 *   pattern that matches the empty string would match on every idle tick there; here it does not.)
 */

export type RankMonitorSnapshot = {
  readonly state: LogState;
  readonly rules: RankLogState["rules"];
  readonly fault: LogFault | null;
  readonly suspended: boolean;
  readonly evaluators: readonly RuleSnapshot[];
};

/**
 * One line going through the rules one rule at a time, so a caller can stop between rules (the agent's
 * per-line budget, server/agent/rule-queue.ts). Rules start where the previous line's budget ran out, so a
 * costly first rule cannot keep the others from ever seeing a line.
 */
export type LineRun = {
  /** The rule the next step() evaluates; null once done. */
  next(): string | null;
  /** Evaluates the next rule; false once every rule has seen the line. */
  step(): boolean;
  /** The rules not evaluated yet count the line as not matched (their windows still run). */
  skipRest(): number;
  /** The rank's report after the line. */
  finish(): RankLogState;
};

export type RankLogMonitor = {
  onLine(line: string): RankLogState;
  startLine(line: string): LineRun;
  tick(): RankLogState;
  suspend(at?: number): void;
  resume(at?: number): void;
  snapshot(): RankMonitorSnapshot;
};

export type CreateRankLogMonitorResult =
  | { ok: true; monitor: RankLogMonitor }
  | { ok: false; reason: string };

function nextReport(current: RankLogState, next: RankLogState): RankLogState {
  if (next.state === current.state || current.state === "FAULTED") return current;
  // WAITING is never re-entered (the agent would refuse the transition).
  return next.state === "WAITING" ? current : next;
}

type MonitorState = { report: RankLogState; suspended: boolean; firstRule: number };

function aggregate(evaluators: readonly RuleEvaluator[], m: MonitorState): RankLogState {
  if (m.suspended) return m.report;
  const outcomes = evaluators.map((evaluator) => {
    const { state, lastMatchLine } = evaluator.snapshot();
    return { rule: evaluator.name, state, lastMatchLine };
  });
  m.report = nextReport(m.report, aggregateRuleStates(outcomes));
  return m.report;
}

function lineRun(evaluators: readonly RuleEvaluator[], m: MonitorState, line: string): LineRun {
  const count = evaluators.length;
  const first = m.firstRule;
  let done = m.suspended ? count : 0;
  const at = (index: number) => evaluators[(first + index) % count];
  return {
    next: () => (done < count ? (at(done)?.name ?? null) : null),
    step: () => {
      if (m.suspended) done = count;
      if (done >= count) return false;
      at(done)?.evaluate(line);
      done += 1;
      return done < count;
    },
    skipRest: () => {
      const skipped = count - done;
      if (skipped > 0) m.firstRule = (first + done) % count;
      for (; done < count; done += 1) at(done)?.evaluate(null);
      return skipped;
    },
    finish: () => aggregate(evaluators, m),
  };
}

function buildMonitor(evaluators: readonly RuleEvaluator[]): RankLogMonitor {
  const m: MonitorState = { report: WAITING_RANK, suspended: false, firstRule: 0 };
  const run = (line: string | null): RankLogState => {
    if (m.suspended) return m.report;
    for (const evaluator of evaluators) evaluator.evaluate(line);
    return aggregate(evaluators, m);
  };
  return {
    onLine: (line) => run(line),
    startLine: (line) => lineRun(evaluators, m, line),
    tick: () => run(null),
    suspend: (at) => {
      m.suspended = true;
      m.report = WAITING_RANK;
      for (const evaluator of evaluators) evaluator.suspend(at);
    },
    resume: (at) => {
      m.suspended = false;
      for (const evaluator of evaluators) evaluator.resume(at);
    },
    snapshot: () => ({
      state: m.report.state,
      rules: m.report.rules,
      fault: rankLogFault(m.report),
      suspended: m.suspended,
      evaluators: evaluators.map((evaluator) => evaluator.snapshot()),
    }),
  };
}

/** Fails, like the agent's "Failed to load Log Monitoring Configuration", if any pattern does not compile. */
export function createRankLogMonitor({
  rules,
  now,
}: {
  rules: readonly LogMonitoringRule[];
  now: Clock;
}): CreateRankLogMonitorResult {
  const evaluators: RuleEvaluator[] = [];
  for (const config of rules) {
    const compiled = compileLogRule(config);
    if (!compiled.ok) return { ok: false, reason: compiled.reason };
    evaluators.push(createRuleEvaluator({ rule: compiled.rule, now }));
  }
  return { ok: true, monitor: buildMonitor(evaluators) };
}
