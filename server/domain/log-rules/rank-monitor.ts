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

export type RankLogMonitor = {
  onLine(line: string): RankLogState;
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

function buildMonitor(evaluators: readonly RuleEvaluator[]): RankLogMonitor {
  let report: RankLogState = WAITING_RANK;
  let suspended = false;
  const run = (line: string | null): RankLogState => {
    if (suspended) return report;
    const outcomes = evaluators.map((evaluator) => {
      const state = evaluator.evaluate(line);
      return { rule: evaluator.name, state, lastMatchLine: evaluator.snapshot().lastMatchLine };
    });
    report = nextReport(report, aggregateRuleStates(outcomes));
    return report;
  };
  return {
    onLine: (line) => run(line),
    tick: () => run(null),
    suspend: (at) => {
      suspended = true;
      report = WAITING_RANK;
      for (const evaluator of evaluators) evaluator.suspend(at);
    },
    resume: (at) => {
      suspended = false;
      for (const evaluator of evaluators) evaluator.resume(at);
    },
    snapshot: () => ({
      state: report.state,
      rules: report.rules,
      fault: rankLogFault(report),
      suspended,
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
