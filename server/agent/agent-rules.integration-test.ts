import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import {
  type AgentHandle,
  cleanupAgents,
  DEMO_TRAINER,
  startAgent,
  waitForExit,
} from "./testing/agent-harness";

/**
 * Log-monitoring rules on the real agent opted in to faulting on every local rank (--log-rules-all-ranks):
 * a hang, then a NaN loss, on ranks other than 0. The default (local rank 0 only, as hyperpodrun) is in
 * agent-rank-zero.integration-test.ts.
 */

describe("agent log rules, 4 local ranks, --log-rules-all-ranks", () => {
  let dir = "";
  let control = "";
  let agent: AgentHandle;
  const start = (input: { faultCount: number; rules: LogMonitoringRule[] }) =>
    agent.request({
      method: "POST",
      path: "/start",
      body: {
        rank: 0,
        nnodes: 1,
        faultCount: input.faultCount,
        master_addr: "127.0.0.1",
        master_port: 29500,
        log_monitoring_configuration: input.rules,
      },
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-rules-"));
    control = path.join(dir, "control.json");
    agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=4",
        "--log-rules-all-ranks",
        `--log-dir=${path.join(dir, "logs")}`,
        "--monitor-interval-ms=100",
        "--shutdown-timeout=5",
        DEMO_TRAINER,
        "--step-ms=50",
        `--checkpoint-dir=${path.join(dir, "ckpt")}`,
        `--control-file=${control}`,
      ],
    });
  });

  afterAll(async () => {
    await cleanupAgents();
    await rm(dir, { recursive: true, force: true });
  });

  it("faults LogHang_<rule> within the rule's window + 1 s when one rank stops logging", async () => {
    const rules = [{ name: "StepHang", logPattern: ".*step=\\d+.*", expectedRecurringFrequencyInSeconds: 1 }];
    expect((await start({ faultCount: 0, rules })).status).toBe(200);
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 3));
    const before = await agent.status();
    expect(before.ranks?.[1]?.rule_states).toEqual({ StepHang: "HEALTHY" });
    await writeFile(control, JSON.stringify({ kind: "hang", rank: 1, id: "hang-1" }));
    const { status, at } = await agent.waitFor((s) => s.status === "faulted", { intervalMs: 10 });
    const hung = status.ranks?.[1];
    const lastLineAt = Date.parse(hung?.last_line_at ?? "");
    console.log(`hang detection: ${at - lastLineAt} ms after the rank's last line (window 1000 ms)`);
    expect(at - lastLineAt).toBeGreaterThan(1000);
    expect(at - lastLineAt).toBeLessThan(2000);
    expect(status.reason).toBe("LogHang_StepHang");
    expect(status.message).toBe(
      `The job is hanging (not receiving required logs) on the following log monitoring rules and corresponding last matched log lines: {'StepHang': '${hung?.last_line}\\n'}`,
    );
    expect(hung?.rule_states).toEqual({ StepHang: "HANGING" });
    expect(status.ranks?.[0]?.rule_states).toEqual({ StepHang: "HEALTHY" });
    expect(await waitForExit(agent.workerPids)).toEqual([]);
    await agent.request({ method: "POST", path: "/stop" });
    await agent.waitFor((s) => s.status === "ready");
  });

  it("faults LogFault_<rule> on a NaN loss line with faultOnMatch, on a rank other than 0", async () => {
    const rules = [
      { name: "NaNLoss", logPattern: ".*loss=nan.*", faultOnMatch: true },
      {
        name: "Throughput",
        logPattern: ".*throughput=(\\d+(?:\\.\\d+)?).*",
        metricThreshold: 10,
        operator: "lt" as const,
      },
    ];
    expect((await start({ faultCount: 1, rules })).status).toBe(200);
    const { status: running } = await agent.waitFor((s) =>
      (s.ranks ?? []).every((r) => typeof r.rule_metrics.Throughput === "number"),
    );
    expect(running.status).toBe("running");
    expect(running.ranks?.[3]?.rule_states).toEqual({ NaNLoss: "WAITING", Throughput: "HEALTHY" });
    await writeFile(control, JSON.stringify({ kind: "nan", rank: 3, id: "nan-1" }));
    const { status } = await agent.waitFor((s) => s.status === "faulted", { intervalMs: 10 });
    expect(status.reason).toBe("LogFault_NaNLoss");
    expect(status.message).toMatch(
      /^The job detected a fault indicating log message for the following log monitoring rules and corresponding log lines: \{'NaNLoss': 'step=\d+ loss=nan throughput=[\d.]+ samples\/s rank=3\\n'\}$/,
    );
    expect(status.ranks?.[3]).toMatchObject({
      loss: "nan",
      rule_states: { NaNLoss: "FAULTED", Throughput: "HEALTHY" },
    });
    const metrics = await agent.request({ method: "GET", path: "/metrics" });
    expect(metrics.text).toContain('rebound_agent_faults_total{reason="LogHang_StepHang"} 1');
    expect(metrics.text).toContain('rebound_agent_faults_total{reason="LogFault_NaNLoss"} 1');
    expect(metrics.text).toContain(
      'rebound_agent_rank_rule_state{local_rank="3",rank="3",rule="NaNLoss",state="FAULTED"} 1',
    );
    // prom-client writes NaN as "Nan" (Prometheus parses it case-insensitively).
    expect(metrics.text).toMatch(/rebound_agent_rank_loss\{local_rank="3",rank="3"\} Na[Nn]/);
    expect(await waitForExit(agent.workerPids)).toEqual([]);
  });
});
