import { Counter, Gauge, Histogram } from "prom-client";
import { createRegistry, DEFAULT_LATENCY_BUCKETS_SECONDS } from "@/server/metrics/exposition";

/**
 * The operator's /metrics (port 8081), on its own prom-client registry. The seven
 * `hyperpod_training_operator_jobs_*` series are HyperPod's documented names
 * (docs/hyperpod-compatibility.md, "Operator metrics"); their labels are not published, so ours are:
 *   namespace            the job's namespace (every series)
 *   job_name             the job (restart and latency series)
 *   restart_type         PLR | POD_REPLACEMENT | JLR (restarts and restart latency)
 *   fault_reason         WorkerCrash, LogHang_<rule>, NodeFault, … (fault detection latency)
 * Latencies are histograms in seconds under HyperPod's exact names (no _seconds suffix, so dashboards
 * written for HyperPod work): detection = detected − fault time, restart = recovered − detected.
 */
export function createOperatorMetrics() {
  const registry = createRegistry();
  const registers = [registry];
  const prefix = "hyperpod_training_operator_jobs";
  const namespaced = (name: string, help: string) =>
    new Counter({ name: `${prefix}_${name}_total`, help, labelNames: ["namespace"] as const, registers });
  const restartLabels = ["namespace", "job_name", "restart_type"] as const;
  return {
    registry,
    created: namespaced("created", "Total number of jobs that the training operator has run."),
    deleted: namespaced("deleted", "Total number of deleted jobs."),
    successful: namespaced("successful", "Total number of completed jobs."),
    failed: namespaced("failed", "Total number of failed jobs."),
    restarted: new Counter({
      name: `${prefix}_restarted_total`,
      help: "Total number of auto-restarts of jobs, by restart type.",
      labelNames: restartLabels,
      registers,
    }),
    restartLatency: new Histogram({
      name: `${prefix}_restart_latency`,
      help: "Current job restart latency in seconds: fault detection until every rank runs again.",
      labelNames: restartLabels,
      buckets: [...DEFAULT_LATENCY_BUCKETS_SECONDS],
      registers,
    }),
    detectionLatency: new Histogram({
      name: `${prefix}_fault_detection_latency`,
      help: "Fault detection latency in seconds: fault time until the operator detected it.",
      labelNames: ["namespace", "job_name", "fault_reason"] as const,
      buckets: [...DEFAULT_LATENCY_BUCKETS_SECONDS],
      registers,
    }),
    restartStageSeconds: new Histogram({
      name: "rebound_operator_restart_stage_seconds",
      help:
        "Where a restart's time goes, by stage: replacing (its pods made), stopping (every agent READY), " +
        "starting (every agent running). A restart's first stage counts from its detection; starting " +
        "leaves out a crash-loop back-off's wait.",
      labelNames: ["restart_type", "stage"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    reconcileSeconds: new Histogram({
      name: "rebound_operator_reconcile_duration_seconds",
      help: "Duration of one reconcile of one job.",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    reconcileErrors: new Counter({
      name: "rebound_operator_reconcile_errors_total",
      help: "Reconciles that failed and were retried with backoff.",
      registers,
    }),
    agentPollErrors: new Counter({
      name: "rebound_operator_agent_poll_errors_total",
      help: "Agent /status polls that timed out, failed or returned an unparsable answer.",
      labelNames: ["cause"] as const,
      registers,
    }),
    agentPolls: new Counter({
      name: "rebound_operator_agent_polls_total",
      help: "Agent /status polls sent (agents that cannot push, and pushing agents' fallback polls).",
      registers,
    }),
    agentPushLines: new Counter({
      name: "rebound_operator_agent_push_lines_total",
      help: "/status lines received on agents' watch streams (GET /rebound/v1/watch).",
      registers,
    }),
    agentHeartbeats: new Counter({
      name: "rebound_operator_agent_heartbeats_total",
      help: "Heartbeats (bare newlines) received on agents' watch streams.",
      registers,
    }),
    agentSilences: new Counter({
      name: "rebound_operator_agent_silences_total",
      help: "Pushing agents judged silent (no line nor heartbeat within the silence threshold).",
      registers,
    }),
    activeJobs: new Gauge({
      name: "rebound_operator_active_jobs",
      help: "Jobs the operator is driving.",
      registers,
    }),
    queueDepth: new Gauge({
      name: "rebound_operator_workqueue_depth",
      help: "Keys waiting or running.",
      registers,
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
