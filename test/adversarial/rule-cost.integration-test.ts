import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentHandle, cleanupAgents, startAgent } from "@/server/agent/testing/agent-harness";
import type { JobRef } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { rankLogs } from "@/server/services/jobs/queries";
import { LONG_LINE_CHARS, WORST_ACCEPTED_RULES } from "./rule-cost-rules";

/**
 * Issue 16, item 6: rule cost. The rule sets: 100 rules of `(.*a){100}x` (accepted before: an
 * agent spent ~125 ms per rule per line, missed its status calls and was replaced; the console's logs view
 * blocked every request for 17 s), and 100 cheap-looking rules over 100,000-character lines. Now the first
 * is refused at validation naming the rule; and with the costliest rule set the validator accepts, over
 * 100,000-character lines, a real agent keeps answering /status and the logs view keeps the console's
 * event loop free (its patterns run in a worker).
 */

function withRules(rules: string): string {
  return demoJobYaml({ name: "rule-cost", nodes: 1, ranks: 1 }).replace(
    /logMonitoringConfiguration:\n[\s\S]*$/,
    `logMonitoringConfiguration:\n${rules}`,
  );
}

const ruleYaml = (name: string, pattern: string) =>
  `      - name: ${name}\n        logPattern: '${pattern}'\n`;

describe("issue 16 item 6: costly rules are refused at validation", () => {
  it("refuses 100 rules of (.*a){100}x: too many rules, each too costly, naming the rule", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => ruleYaml(`StepHang${i}`, "(.*a){100}x")).join("");
    const refused = parseJobYaml(withRules(hundred));
    expect(refused.ok).toBe(false);
    const messages = refused.ok ? [] : refused.errors.map((error) => `${error.path}: ${error.message}`);
    expect(messages).toContain(
      "spec.runPolicy.logMonitoringConfiguration: at most 32 log monitoring rules per job (each runs on every output line); got 100",
    );

    const one = parseJobYaml(withRules(ruleYaml("StepHang", "(.*a){100}x")));
    expect(one.ok).toBe(false);
    if (one.ok) return;
    expect(one.errors).toMatchObject([
      {
        path: "spec.runPolicy.logMonitoringConfiguration[0].logPattern",
        message: "rule StepHang: logPattern repeats (.*a) 100 times; at most 64",
      },
    ]);
  });

  it("accepts the costliest rule set the bench and the checks below use", () => {
    const yaml = WORST_ACCEPTED_RULES.map(
      (rule) =>
        `      - name: ${rule.name}\n        logPattern: '${rule.logPattern}'\n        stopPattern: '${rule.stopPattern}'\n        metricThreshold: 1\n        operator: gt\n`,
    ).join("");
    const accepted = parseJobYaml(withRules(yaml));
    expect(accepted.ok ? [] : accepted.errors).toEqual([]);
  });
});

/** Prints 100,000-character lines of "a" (which the rules' patterns match expensively) for a while. */
const FLOOD_SCRIPT = `
const line = "a".repeat(${LONG_LINE_CHARS});
const until = Date.now() + Number(process.argv[2] ?? 8000);
const tick = () => {
  if (Date.now() > until) return setTimeout(() => process.exit(0), 60_000);
  process.stdout.write(line + "\\n");
  setTimeout(tick, 20);
};
tick();
`;

describe("issue 16 item 6: the agent keeps answering under the worst accepted rule set", () => {
  let dir = "";
  let agent: AgentHandle;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "rebound-rule-cost-"));
    const script = path.join(dir, "flood.mjs");
    await writeFile(script, FLOOD_SCRIPT);
    agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=1",
        `--log-dir=${path.join(dir, "logs")}`,
        "--monitor-interval-ms=100",
        "--shutdown-timeout=2",
        script,
        "8000",
      ],
    });
  });

  afterAll(async () => {
    await cleanupAgents();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers /status within 1 s while 100,000-character lines go through 32 costly rules", async () => {
    const started = await agent.request({
      method: "POST",
      path: "/start",
      body: {
        rank: 0,
        nnodes: 1,
        faultCount: 0,
        master_addr: "127.0.0.1",
        master_port: 29500,
        log_monitoring_configuration: WORST_ACCEPTED_RULES,
      },
    });
    expect(started.status).toBe(200);
    await agent.waitFor((s) => (s.ranks?.[0]?.last_line ?? "").startsWith("aaa"));
    const latencies: number[] = [];
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      const t0 = performance.now();
      const status = await agent.status();
      latencies.push(performance.now() - t0);
      expect(status.status).toBe("running");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `agent /status under the worst rule set: p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms over ${latencies.length} calls`,
    );
    expect(latencies.at(-1)).toBeLessThan(1000);
    // The budget was reached and said so, once per rule that crossed it.
    expect(agent.output()).toContain("exceeded the per-line budget");
  }, 60_000);
});

describe("issue 16 item 6: the console's logs view does not run rules on its event loop", () => {
  const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "rule-cost" };
  const tail = 200;
  const log = Array.from({ length: tail }, () => `[default0]:${"a".repeat(LONG_LINE_CHARS)}`).join("\n");
  /** The operator's answer to a logs request; only logs() is read by rankLogs. */
  const source = { logs: async () => log } as unknown as ClusterSource;

  it("keeps event-loop delay low while the worst accepted rules run over 200 long lines", async () => {
    // The first call also bundles and starts the worker.
    await rankLogs(source, ref, {
      pod: "rule-cost-worker-0",
      localRank: 0,
      tail,
      rules: WORST_ACCEPTED_RULES,
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    const lines = await rankLogs(source, ref, {
      pod: "rule-cost-worker-0",
      localRank: 0,
      tail,
      rules: WORST_ACCEPTED_RULES.map((rule) => ({ ...rule, name: `${rule.name}-again` })),
    });
    const elapsed = performance.now() - t0;
    delay.disable();
    const maxDelayMs = delay.max / 1e6;
    console.log(`logs view: ${elapsed.toFixed(0)} ms, event-loop delay max ${maxDelayMs.toFixed(1)} ms`);
    expect(lines).toHaveLength(tail);
    expect(lines[0]?.text).toHaveLength(LONG_LINE_CHARS);
    // Without the worker this blocked for seconds (32 rules x 200 lines x tens of ms).
    expect(maxDelayMs).toBeLessThan(250);
  }, 60_000);
});
