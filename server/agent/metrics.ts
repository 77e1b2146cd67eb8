import { Counter, Gauge, type LabelValues } from "prom-client";
import { RANK_RUN_STATES } from "@/server/domain/agent-api/protocol";
import { createRegistry, type MetricsRegistry } from "../metrics/exposition";
import type { RankRecord } from "./rank-record";
import { AGENT_STATES, type AgentState } from "./state";

/**
 * The agent's Prometheus metrics (`GET /metrics`) on its own prom-client registry, all prefixed
 * `rebound_agent_`. Per-rank series are
 * rebuilt from the last attempt's ranks at every scrape; states are exported one series per possible
 * state, 1 for the current one (the usual enum pattern).
 */

export type AgentMetrics = {
  recordAttempt(): void;
  recordFault(reason: string): void;
  render(input: { state: AgentState; ranks: readonly RankRecord[]; now: number }): Promise<string>;
};

const LOG_STATES = ["WAITING", "HEALTHY", "SLOW", "HANGING", "FAULTED"] as const;
const RANK = ["local_rank", "rank"] as const;

type Labels = LabelValues<string>;

function createGauges(registry: MetricsRegistry) {
  const gauge = (name: string, help: string, labelNames: readonly string[] = RANK): Gauge =>
    new Gauge({ name: `rebound_agent_${name}`, help, labelNames, registers: [registry] });
  return {
    state: gauge("state", "Agent state (1 for the current state).", ["state"]),
    rankState: gauge("rank_state", "Worker process state per local rank (1 for the current state).", [
      ...RANK,
      "state",
    ]),
    step: gauge("rank_step", "Last training step a rank logged (step=<n>)."),
    loss: gauge("rank_loss", "Last loss a rank logged (loss=<x>)."),
    throughput: gauge("rank_throughput", "Last throughput a rank logged (throughput=<x>)."),
    lastLogAge: gauge("rank_last_log_age_seconds", "Seconds since the rank's last output line."),
    restarts: gauge("rank_restarts", "Earlier /start attempts this agent ran before the rank's current one."),
    ruleState: gauge("rank_rule_state", "Log rule state per rank and rule (1 for the current state).", [
      ...RANK,
      "rule",
      "state",
    ]),
    ruleMetric: gauge("rank_rule_metric", "Last metric value a log rule captured.", [...RANK, "rule"]),
  };
}

type Gauges = ReturnType<typeof createGauges>;

function setIfKnown(gauge: Gauge, labels: Labels, value: number | null): void {
  if (value !== null) gauge.set(labels, value);
}

function setRules(gauges: Gauges, input: { record: RankRecord; labels: Labels }): void {
  for (const rule of input.record.monitor?.snapshot().evaluators ?? []) {
    const labels = { ...input.labels, rule: rule.name };
    for (const state of LOG_STATES) gauges.ruleState.set({ ...labels, state }, rule.state === state ? 1 : 0);
    setIfKnown(gauges.ruleMetric, labels, rule.lastMetricValue);
  }
}

function setRank(gauges: Gauges, input: { record: RankRecord; now: number }): void {
  const { record, now } = input;
  const labels: Labels = { local_rank: String(record.localRank), rank: String(record.rank) };
  for (const state of RANK_RUN_STATES)
    gauges.rankState.set({ ...labels, state }, record.state === state ? 1 : 0);
  gauges.restarts.set(labels, record.restarts);
  setIfKnown(gauges.step, labels, record.step);
  setIfKnown(gauges.loss, labels, record.loss);
  setIfKnown(gauges.throughput, labels, record.throughput);
  const age = record.lastLineAt === null ? null : Math.max(0, now - record.lastLineAt) / 1000;
  setIfKnown(gauges.lastLogAge, labels, age);
  setRules(gauges, { record, labels });
}

function resetRanks(gauges: Gauges): void {
  for (const [name, gauge] of Object.entries(gauges)) {
    if (name !== "state") gauge.reset();
  }
}

export function createAgentMetrics(): AgentMetrics {
  const registry = createRegistry();
  const gauges = createGauges(registry);
  const attempts = new Counter({
    name: "rebound_agent_attempts_total",
    help: "Worker group launches (/start).",
    registers: [registry],
  });
  const faults = new Counter({
    name: "rebound_agent_faults_total",
    help: "Faults the agent reported, by reason.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  return {
    recordAttempt: () => attempts.inc(),
    recordFault: (reason) => faults.inc({ reason }),
    render({ state, ranks, now }) {
      for (const candidate of AGENT_STATES)
        gauges.state.set({ state: candidate }, candidate === state ? 1 : 0);
      resetRanks(gauges);
      for (const record of ranks) setRank(gauges, { record, now });
      return registry.render();
    },
  };
}
