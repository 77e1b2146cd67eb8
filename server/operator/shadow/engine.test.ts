import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { DEFAULT_RULE_BUDGET, RULE_MAX_QUEUED } from "@/server/agent/rule-queue";
import { createShadowEngine, type FromShadowEngine, type ToShadowEngine } from "./engine";
import { LONG_LINE_CHARS, WORST_SHADOW_RULES } from "./testing";

/**
 * The engine as the shadow thread runs it, with the worst rule set the limits accept over 100,000-character
 * lines (issue 34): a read hands its lines to the agent's rule queue and returns within about one match;
 * the per-line budget, the queue bound and the hang windows work as for enforced rules, and each is said.
 */

const watch: ToShadowEngine = {
  type: "watch",
  key: "ns/flood",
  identity: "uid|attempt-1|rules",
  rules: WORST_SHADOW_RULES,
  allRanks: false,
  ranksPerNode: 1,
  pods: [{ name: "flood-worker-0", groupRank: 0, node: "node-0" }],
};

const read = (lines: string[]): ToShadowEngine => ({
  type: "read",
  key: "ns/flood",
  identity: "uid|attempt-1|rules",
  pod: "flood-worker-0",
  text: lines.join("\n"),
});

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the shadow engine under the worst accepted rules", () => {
  it("returns from a read within about one match, keeps to the budget and says when it falls behind", async () => {
    const out: FromShadowEngine[] = [];
    let now = 1_000_000;
    const engine = createShadowEngine({ emit: (message) => out.push(message), clock: () => now });
    engine.receive(watch);
    engine.receive(read(["agent: started"]));
    const long = `[default0]:${"a".repeat(LONG_LINE_CHARS)}`;
    const lines = Array.from({ length: RULE_MAX_QUEUED + 44 }, () => long);
    const t0 = performance.now();
    engine.receive(read(["agent: started", ...lines]));
    const readMs = performance.now() - t0;
    console.log(`a read of ${lines.length} 100,000-character lines returned in ${readMs.toFixed(0)} ms`);
    // Unbudgeted, one such line through the 32 rules costs about a second; the read evaluates at most one
    // slice before yielding.
    expect(readMs).toBeLessThan(500);
    expect(out.filter((message) => message.type === "behind")).toEqual([
      { type: "behind", key: "ns/flood", identity: watch.identity, queued: RULE_MAX_QUEUED },
    ]);
    await until("a rule past the per-line budget", () =>
      out.some((message) => message.type === "overBudget"),
    );
    const over = out.find((message) => message.type === "overBudget");
    expect(over).toMatchObject({ rule: expect.stringMatching(/^Costly\d+$/), skipped: expect.any(Number) });
    expect((over as { spentMs: number }).spentMs).toBeGreaterThanOrEqual(DEFAULT_RULE_BUDGET.lineMs);
    // The rules never match a line of "a": past the start cut-off the rank is HANGING, found at a tick.
    now += (WORST_SHADOW_RULES[0]?.expectedStartCutOffInSeconds ?? 0) * 1000 + 1000;
    engine.receive({ type: "tick", pass: 1 });
    expect(out.filter((message) => message.type === "fault")).toMatchObject([
      { fault: { pod: "flood-worker-0", rank: 0, state: "HANGING", rules: expect.any(Array) } },
    ]);
    // Its queue is full: the operator's thread need not read the pod's output next pass (said once, as
    // the full queue was).
    expect(out.at(-1)).toEqual({ type: "ticked", pass: 1, busy: ["ns/flood"] });
    expect(out.filter((message) => message.type === "behind")).toHaveLength(2);
    engine.receive({ type: "forget", key: "ns/flood" });
  }, 60_000);
});
