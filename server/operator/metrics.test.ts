import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalLines } from "@/server/metrics/testing/exposition-lines";
import { createOperatorMetrics, type OperatorMetrics } from "./metrics";

/**
 * The operator's /metrics on the wire, byte for byte: every family's name, HELP, TYPE, label names and
 * order, histogram buckets, value formatting and escaping. The fixtures were captured from the hand-written
 * registry before the switch to prom-client, so a change here is a change dashboards and alerts would see.
 */

const fixture = (name: string) =>
  canonicalLines(readFileSync(new URL(`testdata/${name}`, import.meta.url), "utf8"));

function exercise(metrics: OperatorMetrics): void {
  const job = { namespace: "team-a", job_name: "llama" };
  metrics.created.inc({ namespace: "team-a" });
  metrics.created.inc({ namespace: "team-a" });
  metrics.created.inc({ namespace: "team-b" });
  metrics.deleted.inc({ namespace: "team-b" });
  metrics.successful.inc({ namespace: "team-a" });
  metrics.failed.inc({ namespace: "team-b" });
  for (const restart_type of ["PLR", "POD_REPLACEMENT", "JLR"])
    metrics.restarted.inc({ ...job, restart_type });
  metrics.restartLatency.observe({ ...job, restart_type: "PLR" }, 0.8);
  metrics.restartLatency.observe({ ...job, restart_type: "PLR" }, 0.005);
  metrics.restartLatency.observe({ ...job, restart_type: "JLR" }, 42);
  metrics.detectionLatency.observe({ ...job, fault_reason: "WorkerCrash" }, 0.12);
  // Rule names are user input: the fault reason label carries them, quotes, backslashes and newlines included.
  metrics.detectionLatency.observe({ ...job, fault_reason: 'LogHang_loss "x"\\\nü' }, 301);
  metrics.restartStageSeconds.observe({ restart_type: "POD_REPLACEMENT", stage: "stopping" }, 0.4);
  metrics.reconcileSeconds.observe({}, 0.003);
  metrics.reconcileSeconds.observe({}, 7);
  metrics.reconcileErrors.inc();
  metrics.agentPollErrors.inc({ cause: "timeout" });
  metrics.agentPolls.inc(5);
  metrics.agentPushLines.inc(3);
  metrics.agentHeartbeats.inc(7);
  metrics.agentSilences.inc();
  metrics.activeJobs.set({}, 3);
  metrics.queueDepth.set({}, 0);
}

describe("operator /metrics wire format", () => {
  it("renders HELP, TYPE and the label-less series of a fresh operator", async () => {
    expect(canonicalLines(await createOperatorMetrics().registry.render())).toEqual(
      fixture("metrics-fresh.prom"),
    );
  });

  it("renders every family the reconcilers write, with HyperPod's names, our labels and buckets", async () => {
    const metrics = createOperatorMetrics();
    exercise(metrics);
    expect(canonicalLines(await metrics.registry.render())).toEqual(fixture("metrics-exercised.prom"));
  });
});
