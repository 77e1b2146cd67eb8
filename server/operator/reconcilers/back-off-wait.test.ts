import { describe, expect, it } from "vitest";
import { BACKOFF_INITIAL_MS } from "@/server/domain/recovery/crash-loop";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import {
  createReconcileHarness,
  type ReconcileHarness,
  reconcileUntil,
} from "@/server/operator/testing/reconcile-harness";

/**
 * A crash loop's back-off is waiting, not recovering (issue 36): the restart that waited one out says so
 * on its row (waitMs, and in words), the job lists as "BackOff" with the end of the wait meanwhile, and
 * the row's recovery time (the console's MTTR) leaves the wait out.
 */
const POD = "loop-workers-0";

const running = (h: ReconcileHarness) =>
  h.state().phase === "Running" &&
  h.state().recovery === null &&
  h.agents.state(h.agentUrl(POD)) === "running";

describe("a restart that waits out its crash-loop back-off", () => {
  it("lists as BackOff until the next try and records the wait apart from the recovery", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({ name: "loop", nodes: 1, ranks: 1, gpusPerPod: 1 }),
      nodes: 1,
      gpusPerNode: 1,
    });
    expect(await reconcileUntil(h, () => running(h))).toBe(true);
    // First crash: restarted at once (no progress needed for the first); second in a row: a 10 s back-off.
    h.agents.fault(h.agentUrl(POD), { reason: "WorkerCrash", at: h.clock() });
    expect(await reconcileUntil(h, () => running(h))).toBe(true);
    h.agents.fault(h.agentUrl(POD), { reason: "WorkerCrash", at: h.clock() });
    await reconcileUntil(h, () => h.state().recovery?.stage === "starting");
    const live = h.deps().live.get("default/loop") ?? h.deps().live.list()[0];
    expect(live?.status).toBe("BackOff");
    const until = live?.backOffUntil ?? 0;
    expect(until - h.clock()).toBeGreaterThan(BACKOFF_INITIAL_MS - 1_000);
    expect(live?.reason).toMatch(/back-off 10 s before starting again/);

    h.advance(BACKOFF_INITIAL_MS);
    expect(await reconcileUntil(h, () => running(h))).toBe(true);
    expect(h.deps().live.list()[0]?.status).not.toBe("BackOff");
    const last = h.store.rows().at(-1);
    expect(last?.outcome).toBe("recovered");
    // The wait: detected → the back-off's end (10 s less the few clock ticks of the stop steps).
    expect(last?.waitMs ?? 0).toBeGreaterThan(BACKOFF_INITIAL_MS - 100);
    expect(last?.waitMs ?? 0).toBeLessThanOrEqual(BACKOFF_INITIAL_MS);
    const recoveredAt = last?.recoveredAt?.getTime() ?? 0;
    const detectedAt = last?.detectedAt.getTime() ?? 0;
    // What is left to count as recovery is the control plane's own few ms, not the 10 s wait.
    expect(recoveredAt - detectedAt - (last?.waitMs ?? 0)).toBeLessThan(1_000);
    expect(last?.message).toContain("10 s of it was the crash-loop back-off's wait");
  });
});
