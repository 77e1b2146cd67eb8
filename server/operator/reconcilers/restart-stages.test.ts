import { describe, expect, it } from "vitest";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, reconcileUntil } from "@/server/operator/testing/reconcile-harness";

/**
 * Where a restart's time goes: each stage it passes through is observed once in
 * rebound_operator_restart_stage_seconds (bench:k8s reads it), labelled by restart type and stage.
 */

async function stageCounts(deps: OperatorDeps): Promise<Record<string, number>> {
  const { values } = await deps.metrics.restartStageSeconds.get();
  const counts: Record<string, number> = {};
  for (const value of values) {
    if (!value.metricName?.endsWith("_count") || value.value === 0) continue;
    counts[`${value.labels.restart_type}/${value.labels.stage}`] = value.value;
  }
  return counts;
}

const running = async (h: ReturnType<typeof createReconcileHarness>) =>
  reconcileUntil(h, () => h.state().phase === "Running" && h.state().recovery === null);

describe("the restart stage metric", () => {
  it("observes a pod replacement's three stages once each", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({ name: "stages", nodes: 2, ranks: 2, gpusPerPod: 2 }),
      nodes: 3,
      gpusPerNode: 2,
    });
    await running(h);
    h.cluster.setNodeHealth(h.cluster.pod("stages-workers-1")?.node ?? "", "Unschedulable", h.clock());
    await reconcileUntil(h, () => h.state().recovery !== null);
    await running(h);
    expect(await stageCounts(h.deps())).toEqual({
      "POD_REPLACEMENT/replacing": 1,
      "POD_REPLACEMENT/stopping": 1,
      "POD_REPLACEMENT/starting": 1,
    });
  });

  it("observes an in-place restart from its stopping stage, the first counting from detection", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({
        name: "stages",
        nodes: 2,
        ranks: 2,
        gpusPerPod: 2,
        annotations: { "rebound.dev/max-restarts-without-progress": "0" },
      }),
      nodes: 3,
      gpusPerNode: 2,
    });
    await running(h);
    const detectedBefore = h.clock();
    h.agents.fault(h.agentUrl("stages-workers-1"), { reason: "WorkerCrash", at: h.clock() });
    await reconcileUntil(h, () => h.state().recovery !== null);
    await running(h);
    expect(await stageCounts(h.deps())).toEqual({ "PLR/stopping": 1, "PLR/starting": 1 });
    const { values } = await h.deps().metrics.restartStageSeconds.get();
    const sum = values
      .filter((value) => value.metricName?.endsWith("_sum"))
      .reduce((total, value) => total + value.value, 0);
    // The stages add up to no more than detection → running on the harness's clock.
    expect(sum * 1000).toBeLessThanOrEqual(h.clock() - detectedBefore);
  });
});
