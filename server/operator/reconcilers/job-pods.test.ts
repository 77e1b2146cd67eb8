import { describe, expect, it } from "vitest";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, reconcileUntil } from "@/server/operator/testing/reconcile-harness";

describe("status.jobPods", () => {
  it("is left out for a job that is not elastic (its pods are its replica specs; the list costs at scale)", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({ name: "plain", nodes: 2, ranks: 2, gpusPerPod: 2 }),
      nodes: 2,
      gpusPerNode: 2,
    });
    expect(await reconcileUntil(h, () => h.state().phase === "Running")).toBe(true);
    await h.reconcile();
    expect(h.cluster.status().jobPods).toBeUndefined();
  });
});
