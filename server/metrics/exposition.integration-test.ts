import { describe, expect, it } from "vitest";
import { createAgentMetrics } from "@/server/agent/metrics";
import { createRankRecord, recordLine } from "@/server/agent/rank-record";
import { createRankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { promtoolCheckMetrics } from "./promtool";

/** Label values that exercise every escape and a few characters that are special elsewhere in the format. */
const AWKWARD = ["back\\slash", 'double "quote"', "new\nline", "ünïcødé 🚀", "{braces}=,#", "", " spaced "];

async function operatorText(): Promise<string> {
  const metrics = createOperatorMetrics();
  AWKWARD.forEach((value, index) => {
    metrics.created.inc({ namespace: value }, index);
    metrics.restarted.inc({ namespace: "ns", job_name: value, restart_type: "PLR" });
    metrics.restartLatency.observe({ namespace: "ns", job_name: value, restart_type: "JLR" }, index * 17.3);
    metrics.detectionLatency.observe(
      { namespace: "ns", job_name: "j", fault_reason: `LogHang_${value}` },
      0.2,
    );
  });
  metrics.restartLatency.observe({ namespace: "ns", job_name: "j", restart_type: "PLR" }, 1e6);
  metrics.reconcileSeconds.observe({}, 0.002);
  metrics.reconcileErrors.inc();
  metrics.agentPollErrors.inc({ cause: "timeout" });
  metrics.activeJobs.set({}, 2);
  return metrics.registry.render();
}

async function agentText(): Promise<string> {
  const monitor = createRankLogMonitor({
    rules: [{ name: 'rule "1"\n', logPattern: ".*loss=(\\S+).*" }],
    now: Date.now,
  });
  if (!monitor.ok) throw new Error(monitor.reason);
  const rank = createRankRecord({ localRank: 0, rank: 0, restarts: 0, monitor: monitor.monitor });
  // A diverging loss: NaN and infinite values must still parse (prom-client writes NaN as "Nan"; Prometheus
  // reads special values case-insensitively, which promtool checks below).
  recordLine(rank, { line: "step=1 loss=nan throughput=inf", at: Date.now() });
  const metrics = createAgentMetrics();
  metrics.recordAttempt();
  metrics.recordFault("WorkerCrash");
  return metrics.render({ state: "FAULTED", ranks: [rank], now: Date.now() });
}

describe("promtool check metrics", () => {
  it("accepts the fresh operator's and agent's /metrics", async () => {
    const texts = [
      await createOperatorMetrics().registry.render(),
      await createAgentMetrics().render({ state: "INIT", ranks: [], now: 0 }),
    ];
    for (const text of texts) expect(await promtoolCheckMetrics(text)).toEqual({ ok: true, output: "" });
  });

  it("accepts the operator's /metrics with awkward label values and extreme observations", async () => {
    const text = await operatorText();
    expect(text).toContain('namespace="new\\nline"');
    expect(text).toContain('job_name="double \\"quote\\""');
    expect(text).toContain('le="+Inf"');
    expect(await promtoolCheckMetrics(text)).toEqual({ ok: true, output: "" });
  });

  it("accepts the agent's /metrics with NaN and infinite values and an awkward rule name", async () => {
    const text = await agentText();
    expect(text).toMatch(/^rebound_agent_rank_loss\{local_rank="0",rank="0"\} NaN$/im);
    expect(text).toContain('rebound_agent_rank_throughput{local_rank="0",rank="0"} +Inf');
    expect(text).toContain('rule="rule \\"1\\"\\n"');
    expect(await promtoolCheckMetrics(text)).toEqual({ ok: true, output: "" });
  });

  it("rejects a syntax error (so promtool really reads what we send)", async () => {
    const result = await promtoolCheckMetrics('# HELP a A.\n# TYPE a gauge\na{b="unterminated} 1\n');
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/parsing error/);
  });

  it("rejects lint problems: a counter without _total and a metric without HELP", async () => {
    const result = await promtoolCheckMetrics("# TYPE jobs counter\njobs 1\n");
    expect(result.ok).toBe(false);
    expect(result.output).toContain('counter metrics should have "_total" suffix');
    expect(result.output).toContain("no help text");
  });

  it("throws when the binary cannot be started", async () => {
    await expect(promtoolCheckMetrics("", { binary: "/nonexistent/promtool" })).rejects.toThrow(
      /cannot run "\/nonexistent\/promtool check metrics"/,
    );
  });
});
