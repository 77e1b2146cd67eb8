import { describe, expect, it } from "vitest";
import type { RankLogState } from "../domain/log-rules/aggregate";
import type { LogMonitoringRule } from "../domain/log-rules/log-rule.schema";
import { createRankLogMonitor, type RankLogMonitor } from "../domain/log-rules/rank-monitor";
import { createRuleQueue, type RuleBudget } from "./rule-queue";

/** A clock that a rule's pattern advances: each match of a rule named slow<N> takes N ms. */
function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function monitor(rules: LogMonitoringRule[]): RankLogMonitor {
  const created = createRankLogMonitor({ rules, now: () => 0 });
  if (!created.ok) throw new Error(created.reason);
  created.monitor.resume(0);
  return created.monitor;
}

/** Wraps a monitor so that each rule step costs `costOf(rule)` ms on the fake clock. */
function costly(m: RankLogMonitor, clock: ReturnType<typeof fakeClock>, costOf: (rule: string) => number) {
  return {
    ...m,
    startLine: (line: string) => {
      const run = m.startLine(line);
      return {
        ...run,
        step: () => {
          clock.advance(costOf(run.next() ?? ""));
          return run.step();
        },
      };
    },
  };
}

const BUDGET: RuleBudget = { sliceMs: 10, lineMs: 100, maxQueued: 4 };
const rules = (names: string[]): LogMonitoringRule[] =>
  names.map((name) => ({ name, logPattern: `.*${name}.*`, faultOnMatch: true }));

function harness(names: string[], costOf: (rule: string) => number, budget = BUDGET) {
  const clock = fakeClock();
  const m = costly(monitor(rules(names)), clock, costOf);
  const done: RankLogState[] = [];
  const over: { rule: string; spentMs: number; skipped: number }[] = [];
  const behind: number[] = [];
  const queue = createRuleQueue<string>({
    budget,
    clock: clock.now,
    events: {
      onDone: (_, state) => done.push(state),
      onOverBudget: (input) => over.push(input),
      onBehind: ({ queued }) => behind.push(queued),
    },
  });
  return { queue, push: (line: string) => queue.push("rank0", m, line), done, over, behind };
}

/** Waits (real time) until the queue has no line left. */
async function settled(queue: { pending(): number }): Promise<void> {
  const deadline = Date.now() + 5000;
  while (queue.pending() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("rule queue", () => {
  it("evaluates a line with cheap rules at once, synchronously", () => {
    const h = harness(["oom", "nccl"], () => 1);
    h.push("CUDA oom here");
    expect(h.done.map((s) => s.state)).toEqual(["FAULTED"]);
    expect(h.queue.pending()).toBe(0);
  });

  it("yields to the event loop once a slice of rule time is spent, and finishes later", async () => {
    const h = harness(["a", "b", "c", "d"], () => 6);
    h.push("d");
    expect(h.done).toEqual([]);
    expect(h.queue.pending()).toBe(1);
    await settled(h.queue);
    expect(h.done.map((s) => s.state)).toEqual(["FAULTED"]);
    expect(h.over).toEqual([]);
  });

  it("counts the rules past the line budget as not matched, reports the rule once, and starts the next line there", async () => {
    // 60 ms a rule: a, b run (120 ms > 100), c and d are skipped on the first line.
    const h = harness(["a", "b", "c", "d"], () => 60);
    h.push("d d d");
    h.push("d d d");
    await settled(h.queue);
    expect(h.done.map((s) => s.state)).toEqual(["WAITING", "FAULTED"]);
    // The second line started at c (FAULTED on it) and crossed the budget at d.
    expect(h.over).toEqual([
      { rule: "b", spentMs: 120, skipped: 2 },
      { rule: "d", spentMs: 120, skipped: 2 },
    ]);
    // The third starts at a again and crosses at b: already reported.
    h.push("x");
    await settled(h.queue);
    expect(h.done).toHaveLength(3);
    expect(h.over).toHaveLength(2);
  });

  it("keeps at most maxQueued lines waiting and reports being behind once", async () => {
    const h = harness(["a", "b"], () => 30);
    for (let i = 0; i < 10; i += 1) h.push(`line ${i}`);
    expect(h.queue.dropped()).toBeGreaterThan(0);
    expect(h.behind).toHaveLength(1);
    await settled(h.queue);
    expect(h.queue.pending()).toBe(0);
    expect(h.done.length + h.queue.dropped()).toBe(10);
  });
});
