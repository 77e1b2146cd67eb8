import { describe, expect, it } from "vitest";
import { DEFAULT_OPERATOR_CONFIG } from "@/server/operator/reconcilers/deps";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, type ReconcileHarness } from "@/server/operator/testing/reconcile-harness";

/**
 * An agent that stops answering while a restart stops the others (frozen, its node cut off) never turns
 * READY: the restart must replace its pod, as it recreates one that died meanwhile, instead of waiting in
 * "stopping" for good (bench:k8s at 2,048 pods, 20 agents frozen over 10 s, held a restart past 180 s).
 */
const POD0 = "hung-workers-0";
const POD1 = "hung-workers-1";

async function reconcileUntil(h: ReconcileHarness, done: () => boolean, rounds = 20): Promise<number> {
  for (let round = 1; round <= rounds; round += 1) {
    await h.reconcile();
    if (done()) return round;
  }
  return -1;
}

const running = (h: ReconcileHarness) =>
  h.state().phase === "Running" &&
  h.state().recovery === null &&
  [POD0, POD1].every((pod) => h.agents.state(h.agentUrl(pod)) === "running");

describe("a restart whose agent stops answering while the others stop", () => {
  it("replaces that agent's pod and finishes, with a Warning that names it", async () => {
    const h = createReconcileHarness({
      yaml: demoJobYaml({
        name: "hung",
        nodes: 2,
        ranks: 2,
        gpusPerPod: 2,
        annotations: { "rebound.dev/max-restarts-without-progress": "0" },
      }),
      nodes: 3,
      gpusPerNode: 2,
    });
    expect(await reconcileUntil(h, () => running(h))).toBeGreaterThan(0);
    const frozenUrl = h.agentUrl(POD1);
    h.agents.freeze(frozenUrl);
    h.agents.fault(h.agentUrl(POD0), { reason: "WorkerCrash", at: h.clock() });
    await h.reconcile();
    expect(h.state().recovery?.stage).toBe("stopping");
    // Within the unreachable timeout the restart waits for it, as for any agent still stopping.
    await h.reconcile();
    expect(h.state().recovery?.stage).toBe("stopping");
    expect(h.agentUrl(POD1)).toBe(frozenUrl);
    h.advance(DEFAULT_OPERATOR_CONFIG.agentTimeoutMs);
    expect(await reconcileUntil(h, () => running(h))).toBeGreaterThan(0);
    expect(h.agentUrl(POD1)).not.toBe(frozenUrl);
    const warnings = h.cluster.events.filter((event) => event.reason === "AgentUnreachable");
    expect(warnings.map((event) => event.message)).toEqual([
      `agents stopped answering during the restart, pods replaced: ${POD1}`,
    ]);
    expect(h.store.rows().map((row) => [row.reason, row.outcome])).toEqual([["WorkerCrash", "recovered"]]);
  });
});
