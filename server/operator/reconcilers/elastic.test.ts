import { describe, expect, it } from "vitest";
import type { StopRequestBody } from "@/server/operator/agent-client";
import { createReconcileHarness, type ReconcileHarness } from "@/server/operator/testing/reconcile-harness";

/**
 * The elastic reconciler on in-memory fakes (no governance: every size is available, as HyperPod without
 * Kueue): the job starts at minReplicas, scales up through the stages (new pods READY, graceful stop, restart
 * at the new world size with new ranks), only ever stops gracefully, and an operator that dies between any
 * two reconciles continues the scaling from the job's status instead of starting another.
 */
const YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata: { name: grow, namespace: hyperpod-ns-llm-research }
spec:
  nprocPerNode: "2"
  elasticPolicy:
    minReplicas: 1
    maxReplicas: 3
    replicaIncrementStep: 2
    scalingTimeoutInSeconds: 0
    gracefulShutdownTimeoutInSeconds: 45
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              resources: { limits: { nvidia.com/gpu: 2 } }
`;

function recordStops(h: ReconcileHarness): StopRequestBody[] {
  const stops: StopRequestBody[] = [];
  const stop = h.agents.stop.bind(h.agents);
  h.agents.stop = (url, body) => {
    stops.push(body);
    return stop(url, body);
  };
  return stops;
}

async function until(
  h: ReconcileHarness,
  done: () => boolean,
  opts: { crash?: boolean } = {},
): Promise<number> {
  for (let i = 0; i < 40; i += 1) {
    if (done()) return i;
    await h.reconcile();
    if (opts.crash) h.crash();
  }
  throw new Error(`not done after 40 reconciles: ${JSON.stringify(h.state().elastic)}`);
}

const startsOf = (h: ReconcileHarness, pod: string) => h.agents.starts(h.agentUrl(pod));

describe.each([
  { name: "one operator", crash: false },
  { name: "an operator killed after every reconcile", crash: true },
])("elastic scale-up ($name)", ({ crash }) => {
  it("starts at minReplicas, grows to the next allowed size through READY pods and a graceful stop", async () => {
    const h = createReconcileHarness({ yaml: YAML, nodes: 3, gpusPerNode: 2 });
    const stops = recordStops(h);
    await until(h, () => h.state().phase === "Running", { crash });
    expect(h.cluster.created).toEqual(["grow-workers-0"]);
    expect(startsOf(h, "grow-workers-0").map((s) => s.nnodes)).toEqual([1]);

    await until(h, () => h.state().elastic?.size === 3 && h.state().elastic?.scaling === null, { crash });
    // Sizes 1 and 3 only (step 2): the two new pods made once each, every stop graceful with the policy's timeout.
    expect(h.cluster.created).toEqual(["grow-workers-0", "grow-workers-1", "grow-workers-2"]);
    expect(stops.length).toBeGreaterThan(0);
    expect(stops.every((body) => body.is_graceful === true && body.timeout === 45)).toBe(true);
    // Restarted at the new world size, re-ranked.
    for (const [rank, pod] of ["grow-workers-0", "grow-workers-1", "grow-workers-2"].entries()) {
      expect(startsOf(h, pod).at(-1)).toMatchObject({ nnodes: 3, rank });
    }
    expect(h.state().phase).toBe("Running");
    expect(h.cluster.status().elasticScalingStatus).toMatchObject({
      targetReplicas: { workers: 3 },
      podsScaled: true,
      isFaultyPodScaleDown: false,
      consecutiveScalingFailures: 0,
    });
    const reasons = h.cluster.events.map((e) => e.reason);
    expect(reasons.filter((r) => r === "Scaling")).toHaveLength(1);
    expect(reasons.filter((r) => r === "Scaled")).toHaveLength(1);
    expect(h.cluster.status().restartCount ?? 0).toBe(0);
  });
});

describe("elastic scale-up that fails", () => {
  it("new pods not READY within the start grace: deleted, the job stays at its size, backed off", async () => {
    const h = createReconcileHarness({ yaml: YAML, nodes: 3, gpusPerNode: 2 });
    await until(h, () => h.state().phase === "Running");
    // The new pods' agents never come up: they stay in INIT.
    const boot = h.agents.boot.bind(h.agents);
    h.agents.boot = (url) => {
      boot(url);
      h.agents.fault(url, { reason: "never", at: 0 });
    };
    h.deps().config.podStartGraceMs = 0;
    await until(h, () => (h.state().elastic?.failures ?? 0) > 0);
    expect(h.state().elastic).toMatchObject({ size: 1, scaling: null, failures: 1 });
    expect(h.cluster.pod("grow-workers-1")).toBeUndefined();
    expect(h.cluster.events.map((e) => e.reason)).toContain("ScalingFailed");
    expect(h.cluster.status().elasticScalingStatus?.consecutiveScalingFailures).toBe(1);
    // Backing off: the next reconciles start no scaling.
    await h.reconcile();
    expect(h.state().elastic?.scaling).toBeNull();
    expect(h.state().elastic?.why).toMatch(/backing off after 1 failed scaling/);
  });
});

describe.each([
  { name: "one operator", crash: false },
  { name: "an operator killed after every reconcile", crash: true },
])("faulty scale-down ($name)", ({ crash }) => {
  it("a replaced pod with no node to go to: after faultyScaleDownTimeoutInSeconds the job shrinks instead", async () => {
    const yaml = YAML.replace(
      "gracefulShutdownTimeoutInSeconds: 45",
      "gracefulShutdownTimeoutInSeconds: 45\n    faultyScaleDownTimeoutInSeconds: 0",
    );
    const h = createReconcileHarness({ yaml, nodes: 3, gpusPerNode: 2 });
    const stops = recordStops(h);
    await until(h, () => h.state().elastic?.size === 3 && h.state().elastic?.scaling === null, { crash });
    // The node of the last pod fails: its replacement has nowhere to go (every node's GPUs are taken).
    h.cluster.setNodeHealth(h.cluster.pod("grow-workers-2")?.node ?? "", "Unschedulable", h.clock());
    await until(
      h,
      () => h.state().elastic?.lastReason === "FaultyScaleDown" && h.state().elastic?.scaling === null,
      { crash },
    );
    expect(h.state().elastic?.size).toBe(1);
    expect(h.state().phase).toBe("Running");
    expect(h.cluster.status().elasticScalingStatus).toMatchObject({
      isFaultyPodScaleDown: true,
      targetReplicas: { workers: 1 },
    });
    expect(startsOf(h, "grow-workers-0").at(-1)).toMatchObject({ nnodes: 1, rank: 0 });
    expect(h.cluster.pod("grow-workers-1")).toBeUndefined();
    // The restart ended when the job ran again at the smaller size: recovered, and the job is Running.
    const rows = h.store.rows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: "NodeFault", outcome: "recovered" });
    expect(rows[0]?.recoveredAt).toBeInstanceOf(Date);
    expect(rows[0]?.message).toMatch(/remediated in \d+ milliseconds\. The job scaled down to 1 replicas/);
    const running = h.cluster.status().conditions?.find((c) => c.type === "Running");
    expect(running).toMatchObject({ status: "True", reason: "Running" });
    expect(h.cluster.events.filter((e) => e.reason === "Running").at(-1)?.message).toMatch(
      /scaled down to 1/,
    );
    expect(stops.filter((body) => body.is_graceful === true).every((body) => body.timeout === 45)).toBe(true);
  });
});

describe("faulty scale-down whose agents do not start", () => {
  it("ends the restart as failed, saying why, and leaves Running False", async () => {
    const yaml = YAML.replace(
      "gracefulShutdownTimeoutInSeconds: 45",
      "gracefulShutdownTimeoutInSeconds: 45\n    faultyScaleDownTimeoutInSeconds: 0",
    );
    const h = createReconcileHarness({ yaml, nodes: 3, gpusPerNode: 2 });
    await until(h, () => h.state().elastic?.size === 3 && h.state().elastic?.scaling === null);
    h.cluster.setNodeHealth(h.cluster.pod("grow-workers-2")?.node ?? "", "Unschedulable", h.clock());
    await until(h, () => h.state().elastic?.scaling?.reason === "FaultyScaleDown");
    expect(h.store.rows()[0]).toMatchObject({ outcome: "pending" });
    // /start times out from here on, and the pod start grace is over at once.
    h.agents.hold(true);
    h.deps().config.podStartGraceMs = 0;
    await until(h, () => h.state().elastic?.scaling === null);
    expect(h.store.rows()[0]).toMatchObject({ outcome: "failed", recoveredAt: null });
    expect(h.store.rows()[0]?.message).toMatch(
      /scaled down to 1 replicas for it, but not every agent was running/,
    );
    expect(h.cluster.status().conditions?.find((c) => c.type === "Running")).toMatchObject({
      status: "False",
    });
  });
});

describe("an elastic job's start", () => {
  it("starts at `replicas` (AWS: the initial count), not minReplicas: no scaling, no restart", async () => {
    const yaml = YAML.replace("replicas: 1\n", "replicas: 3\n");
    const h = createReconcileHarness({ yaml, nodes: 3, gpusPerNode: 2 });
    await until(h, () => h.state().phase === "Running");
    expect(h.cluster.created).toEqual(["grow-workers-0", "grow-workers-1", "grow-workers-2"]);
    for (const [rank, pod] of ["grow-workers-0", "grow-workers-1", "grow-workers-2"].entries())
      expect(startsOf(h, pod)).toMatchObject([{ nnodes: 3, rank }]);
    for (let i = 0; i < 5; i += 1) await h.reconcile();
    expect(h.state().elastic).toMatchObject({ size: 3, scaling: null });
    expect(h.cluster.events.map((e) => e.reason)).not.toContain("Scaling");
    expect(h.cluster.status().elasticScalingStatus?.targetReplicas).toEqual({ workers: 3 });
  });

  it("suspended and resumed, starts again at `replicas`, not minReplicas: no scale-up restart after it", async () => {
    const yaml = YAML.replace("replicas: 1\n", "replicas: 3\n");
    const h = createReconcileHarness({ yaml, nodes: 3, gpusPerNode: 2 });
    await until(h, () => h.state().phase === "Running");
    await h.cluster.setSuspended(h.ref, true);
    await until(h, () => h.state().phase === "Suspended");
    await h.cluster.setSuspended(h.ref, false);
    await until(h, () => h.state().phase === "Running");
    for (let i = 0; i < 5; i += 1) await h.reconcile();
    expect(h.state().elastic).toMatchObject({ size: 3, scaling: null });
    expect(h.cluster.events.map((e) => e.reason)).not.toContain("Scaling");
    for (const [rank, pod] of ["grow-workers-0", "grow-workers-1", "grow-workers-2"].entries())
      expect(startsOf(h, pod).at(-1)).toMatchObject({ nnodes: 3, rank });
  });

  it("fills status.jobPods with its pods (no elasticWorkloadRef without task governance)", async () => {
    const h = createReconcileHarness({ yaml: YAML, nodes: 3, gpusPerNode: 2 });
    await until(h, () => h.state().elastic?.size === 3 && h.state().elastic?.scaling === null);
    await h.reconcile();
    const names = ["grow-workers-0", "grow-workers-1", "grow-workers-2"];
    expect(h.cluster.status().jobPods).toEqual(
      names.map((name) => ({ apiVersion: "v1", kind: "Pod", namespace: "hyperpod-ns-llm-research", name })),
    );
    expect(h.cluster.status().elasticWorkloadRef).toBeUndefined();
  });
});
