import { describe, expect, it } from "vitest";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, reconcileUntil } from "@/server/operator/testing/reconcile-harness";

describe("status.jobPods", () => {
  it("lists a job's pods in order for a job that is not elastic, as HyperPod does for every job", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({ name: "plain", nodes: 2, ranks: 2, gpusPerPod: 2 }),
      nodes: 2,
      gpusPerNode: 2,
    });
    expect(await reconcileUntil(h, () => h.state().phase === "Running")).toBe(true);
    await h.reconcile();
    expect(h.cluster.status().jobPods).toEqual(
      ["plain-workers-0", "plain-workers-1"].map((name) => ({
        apiVersion: "v1",
        kind: "Pod",
        namespace: "hyperpod-ns-llm-research",
        name,
      })),
    );
  });
});
