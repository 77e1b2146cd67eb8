import { performance } from "node:perf_hooks";
import type { RankLogState } from "../domain/log-rules/aggregate";
import type { LineRun, RankLogMonitor } from "../domain/log-rules/rank-monitor";

/**
 * Runs output lines through their rank's log rules without starving the agent's HTTP server. Rules are
 * user patterns: pattern.ts bounds one match (about 70 ms for the costliest accepted pattern), but a job may
 * have 32 rules of two patterns each, so one line could take seconds. Here:
 * - a line's rules run one at a time; after SLICE_MS of rule time the queue yields to the event loop and
 *   goes on after a pause as long as the slice took (at most half of the agent's time goes to rules while
 *   they are behind), so /status, which needs a few turns of the event loop, is answered within about one
 *   match. A line whose rules are cheap is evaluated at once, synchronously, with no timer: the common case
 *   costs what it did.
 * - a line may use LINE_BUDGET_MS of rule time; the rules not evaluated by then count the line as not
 *   matched (their windows still run), the next line starts at the first of them, and each rule that
 *   crossed the budget is reported once (`onOverBudget`): "rule X exceeded the per-line budget".
 * - at most MAX_QUEUED lines wait; a line past that is not run through the rules (counted, reported
 *   once), so memory stays bounded while a worker prints faster than its rules run.
 * Lines are evaluated in arrival order, one queue for every rank of the attempt.
 */

export const RULE_SLICE_MS = 10;
export const RULE_LINE_BUDGET_MS = 100;
export const RULE_MAX_QUEUED = 256;

export type RuleBudget = { sliceMs: number; lineMs: number; maxQueued: number };

export const DEFAULT_RULE_BUDGET: RuleBudget = {
  sliceMs: RULE_SLICE_MS,
  lineMs: RULE_LINE_BUDGET_MS,
  maxQueued: RULE_MAX_QUEUED,
};

export type RuleQueueEvents<T> = {
  /** The line's rules are done (or skipped): the rank's report after it. */
  onDone(owner: T, state: RankLogState): void;
  /** Once per rule: it was running when the line's rule time passed the budget. */
  onOverBudget(input: { rule: string; spentMs: number; skipped: number }): void;
  /** Once, the first time a line is dropped because MAX_QUEUED lines wait. */
  onBehind(input: { queued: number }): void;
};

export type RuleQueue<T> = {
  push(owner: T, monitor: RankLogMonitor, line: string): void;
  /** Lines waiting (the one being evaluated included). */
  pending(): number;
  /** Lines dropped because the queue was full. */
  dropped(): number;
};

type Job<T> = { owner: T; monitor: RankLogMonitor; line: string };
type Current<T> = { owner: T; run: LineRun; spentMs: number };

type QueueState<T> = {
  queue: Job<T>[];
  current: Current<T> | null;
  scheduled: boolean;
  dropped: number;
  reported: Set<string>;
};

export function createRuleQueue<T>(input: {
  events: RuleQueueEvents<T>;
  budget?: RuleBudget;
  clock?: () => number;
}): RuleQueue<T> {
  const budget = input.budget ?? DEFAULT_RULE_BUDGET;
  const clock = input.clock ?? (() => performance.now());
  const { events } = input;
  const s: QueueState<T> = { queue: [], current: null, scheduled: false, dropped: 0, reported: new Set() };

  /** Evaluates one rule of the current line; true once the line is done. */
  const stepCurrent = (current: Current<T>): boolean => {
    const rule = current.run.next();
    const started = clock();
    const more = current.run.step();
    current.spentMs += clock() - started;
    if (!more) return true;
    if (current.spentMs < budget.lineMs) return false;
    const skipped = current.run.skipRest();
    if (rule !== null && !s.reported.has(rule)) {
      s.reported.add(rule);
      events.onOverBudget({ rule, spentMs: Math.round(current.spentMs), skipped });
    }
    return true;
  };

  const hasWork = () => s.current !== null || s.queue.length > 0;

  /** Takes the next line if none is being evaluated, and evaluates one of its rules. */
  const advance = (): void => {
    if (s.current === null) {
      const job = s.queue.shift() as Job<T>;
      s.current = { owner: job.owner, run: job.monitor.startLine(job.line), spentMs: 0 };
    }
    const current = s.current;
    if (!stepCurrent(current)) return;
    s.current = null;
    events.onDone(current.owner, current.run.finish());
  };

  const drain = (): void => {
    s.scheduled = false;
    const sliceStart = clock();
    while (hasWork()) {
      advance();
      const spent = clock() - sliceStart;
      if (spent >= budget.sliceMs && hasWork()) {
        s.scheduled = true;
        setTimeout(drain, Math.ceil(spent));
        return;
      }
    }
  };

  return {
    push(owner, monitor, line) {
      if (s.queue.length >= budget.maxQueued) {
        if (s.dropped === 0) events.onBehind({ queued: s.queue.length });
        s.dropped += 1;
        return;
      }
      s.queue.push({ owner, monitor, line });
      if (!s.scheduled && s.current === null && s.queue.length === 1) drain();
    },
    pending: () => s.queue.length + (s.current === null ? 0 : 1),
    dropped: () => s.dropped,
  };
}
