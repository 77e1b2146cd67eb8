import { createRegistry, DEFAULT_LATENCY_BUCKETS_SECONDS } from "@/server/metrics/exposition";

/**
 * The operator's /metrics (port 8081). The seven `hyperpod_training_operator_jobs_*` series are HyperPod's
 * documented names (reference §3.3); their labels are not published, so ours are:
 *   namespace            the job's namespace (every series)
 *   job_name             the job (restart and latency series)
 *   restart_type         PLR | POD_REPLACEMENT | JLR (restarts and restart latency)
 *   fault_reason         WorkerCrash, LogHang_<rule>, NodeFault, … (fault detection latency)
 * Latencies are histograms in seconds under HyperPod's exact names (no _seconds suffix, so dashboards
 * written for HyperPod work): detection = detected − fault time, restart = recovered − detected.
 */
export function createOperatorMetrics() {
  const registry = createRegistry();
  const prefix = "hyperpod_training_operator_jobs";
  return {
    registry,
    created: registry.counter({
      name: `${prefix}_created_total`,
      help: "Total number of jobs that the training operator has run.",
      labelNames: ["namespace"],
    }),
    deleted: registry.counter({
      name: `${prefix}_deleted_total`,
      help: "Total number of deleted jobs.",
      labelNames: ["namespace"],
    }),
    successful: registry.counter({
      name: `${prefix}_successful_total`,
      help: "Total number of completed jobs.",
      labelNames: ["namespace"],
    }),
    failed: registry.counter({
      name: `${prefix}_failed_total`,
      help: "Total number of failed jobs.",
      labelNames: ["namespace"],
    }),
    restarted: registry.counter({
      name: `${prefix}_restarted_total`,
      help: "Total number of auto-restarts of jobs, by restart type.",
      labelNames: ["namespace", "job_name", "restart_type"],
    }),
    restartLatency: registry.histogram({
      name: `${prefix}_restart_latency`,
      help: "Current job restart latency in seconds: fault detection until every rank runs again.",
      labelNames: ["namespace", "job_name", "restart_type"],
      buckets: DEFAULT_LATENCY_BUCKETS_SECONDS,
    }),
    detectionLatency: registry.histogram({
      name: `${prefix}_fault_detection_latency`,
      help: "Fault detection latency in seconds: fault time until the operator detected it.",
      labelNames: ["namespace", "job_name", "fault_reason"],
      buckets: DEFAULT_LATENCY_BUCKETS_SECONDS,
    }),
    reconcileSeconds: registry.histogram({
      name: "rebound_operator_reconcile_duration_seconds",
      help: "Duration of one reconcile of one job.",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    }),
    reconcileErrors: registry.counter({
      name: "rebound_operator_reconcile_errors_total",
      help: "Reconciles that failed and were retried with backoff.",
    }),
    agentPollErrors: registry.counter({
      name: "rebound_operator_agent_poll_errors_total",
      help: "Agent /status polls that timed out, failed or returned an unparsable answer.",
      labelNames: ["cause"],
    }),
    activeJobs: registry.gauge({
      name: "rebound_operator_active_jobs",
      help: "Jobs the operator is driving.",
    }),
    queueDepth: registry.gauge({
      name: "rebound_operator_workqueue_depth",
      help: "Keys waiting or running.",
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
