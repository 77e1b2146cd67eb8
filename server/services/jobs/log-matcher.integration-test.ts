import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { LONG_LINE_CHARS, WORST_ACCEPTED_RULES } from "@/test/adversarial/rule-cost-rules";
import type { ClusterSource } from "./gateway/types";
import { ANSWER_MS, matchLogLines } from "./log-matcher";
import { rankLogs } from "./queries";

/**
 * The logs view's rule marks (log-matcher.ts and its worker) under the costliest rule set the validator
 * accepts: each request is answered within ANSWER_MS however much work waits in the worker, and the marks
 * a request could not wait for arrive with the next requests for the same tail (the page polls it).
 */

const rulesNamed = (suffix: string) =>
  WORST_ACCEPTED_RULES.map((rule) => ({ name: `${rule.name}-${suffix}`, logPattern: rule.logPattern }));
const longLines = (count: number) => Array.from({ length: count }, () => "a".repeat(LONG_LINE_CHARS));

describe("the logs view's rule marks under the worst accepted rules", () => {
  it("answers every request within ANSWER_MS while eight wait on the worker", async () => {
    // Started and bundled before the clock runs.
    await matchLogLines({ rules: rulesNamed("warm-up"), lines: ["a"] });
    // Eight rule sets at once: the worker spends its budget or one costly match on each in turn, about
    // 40-70 ms, so the last would wait for the seven before it without the answer deadline.
    const lines = longLines(200);
    const requests = Array.from({ length: 8 }, (_, i) => rulesNamed(`burst-${i}`));
    const elapsed = await Promise.all(
      requests.map(async (rules) => {
        const t0 = performance.now();
        const matches = await matchLogLines({ rules, lines });
        expect(matches).toHaveLength(200);
        return performance.now() - t0;
      }),
    );
    console.log(
      `eight concurrent logs-view requests answered in ${elapsed.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    // Slack for timers on a loaded machine; seven queued requests would take 300 ms or more.
    expect(Math.max(...elapsed)).toBeLessThan(ANSWER_MS + 120);
  }, 60_000);

  it("marks every line once enough requests for the same tail have run", async () => {
    const rules = rulesNamed("polled");
    const lines = longLines(200);
    // 32 rules of ~20-70 ms each on this line: far more than one request's 40 ms budget.
    let polls = 0;
    let matches: string[][] = [];
    while (polls < 400) {
      polls += 1;
      matches = await matchLogLines({ rules, lines });
      if (matches.every((found) => found.length === rules.length)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    console.log(`all 200 lines marked with all 32 rules after ${polls} requests`);
    expect(polls).toBeGreaterThan(1);
    for (const found of matches) expect(found).toEqual(rules.map((rule) => rule.name));
  }, 120_000);
});

describe("the logs view marks only the lines that make a rule act (issue 36 item 1)", () => {
  it("leaves a healthy trainer's progress lines unmarked under the demo job's hang and metric rules", async () => {
    // examples/jobs/demo-job.yaml's rules; the pod's log as the agent writes it (each rank's lines prefixed).
    const rules = [
      { name: "JobStart", logPattern: ".*training started.*", expectedStartCutOffInSeconds: 60 },
      { name: "JobHang", logPattern: ".*step=(\\d+).*", expectedRecurringFrequencyInSeconds: 10 },
      { name: "LossNaN", logPattern: ".*loss=(nan|inf).*", faultOnMatch: true },
      {
        name: "LowThroughput",
        logPattern: ".*throughput=([0-9.]+).*",
        metricThreshold: 100,
        operator: "lt" as const,
      },
    ];
    const steps = Array.from(
      { length: 40 },
      (_, i) => `step=${i + 1} loss=2.${i} throughput=400.0 samples/s`,
    );
    const rank0 = ["training started", ...steps, "step=41 loss=nan throughput=400.0 samples/s"];
    const log = rank0.flatMap((line) => [`[default0]:${line}`, `[default1]:${line} (rank 1)`]).join("\n");
    const source = { logs: async () => log } as unknown as ClusterSource;
    const lines = await rankLogs(
      source,
      { namespace: "team-a", name: "demo" },
      {
        pod: "demo-worker-0",
        localRank: 0,
        tail: 200,
        rules,
      },
    );
    expect(lines).toHaveLength(42);
    const marked = lines.filter((line) => line.matches.length > 0);
    expect(marked).toEqual([
      { text: "step=41 loss=nan throughput=400.0 samples/s", matches: ["LossNaN: faults the rank"] },
    ]);
  }, 60_000);
});
