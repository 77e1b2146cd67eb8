import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createRankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import { canonicalLines } from "@/server/metrics/testing/exposition-lines";
import { createAgentMetrics } from "./metrics";
import { createRankRecord, recordLine } from "./rank-record";

/**
 * The agent's /metrics on the wire, byte for byte (names, HELP, TYPE, labels and their order, the one-series-
 * per-state pattern, value formatting). The fixtures were captured from the hand-written registry before
 * the switch to prom-client.
 */

const fixture = (name: string) =>
  canonicalLines(readFileSync(new URL(`testdata/${name}`, import.meta.url), "utf8"));
const T0 = Date.UTC(2025, 0, 1);

function ranks() {
  const monitor = createRankLogMonitor({
    rules: [
      { name: "Loss", logPattern: ".*loss=(\\S+).*", metricThreshold: 100, operator: "gt" },
      { name: 'odd "rule"\\', logPattern: ".*never.*" },
    ],
    now: () => T0,
  });
  if (!monitor.ok) throw new Error(monitor.reason);
  const logged = createRankRecord({ localRank: 0, rank: 8, restarts: 2, monitor: monitor.monitor });
  logged.state = "running";
  recordLine(logged, { line: "step=12 loss=1.25 throughput=350.5", at: T0 });
  const silent = createRankRecord({ localRank: 1, rank: 9, restarts: 2, monitor: null });
  silent.state = "crashed";
  return [logged, silent];
}

describe("agent /metrics wire format", () => {
  it("renders agent and per-rank families for a running attempt", async () => {
    const metrics = createAgentMetrics();
    metrics.recordAttempt();
    metrics.recordAttempt();
    metrics.recordFault("WorkerCrash");
    const text = await metrics.render({ state: "RUNNING", ranks: ranks(), now: T0 + 1500 });
    expect(canonicalLines(text)).toEqual(fixture("metrics-running.prom"));
  });

  it("drops the previous attempt's per-rank series when no ranks are left", async () => {
    const metrics = createAgentMetrics();
    await metrics.render({ state: "RUNNING", ranks: ranks(), now: T0 });
    const text = await metrics.render({ state: "READY", ranks: [], now: T0 });
    expect(canonicalLines(text)).toEqual(fixture("metrics-no-ranks.prom"));
  });
});
