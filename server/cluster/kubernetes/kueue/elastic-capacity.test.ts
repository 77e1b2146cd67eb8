import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobObject } from "@/server/domain/job-spec/parse-job";
import type { Logger } from "@/server/log";
import { createKueueElastic } from "./elastic-capacity";
import { stepWorkloadName } from "./elastic-workloads";
import { type Condition, type WorkloadObject, workloadName } from "./workload";
import type { KueueWorkloads } from "./workload-client";

/**
 * The Kueue ElasticCapacity's reading of step Workloads, over an in-memory Workload cache (Kueue's own
 * decisions are in elastic.k8s-test.ts): which size is admitted, which preempted, what is created and
 * deleted, and that another run's Workloads of the same job name are not this run's.
 */
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };
const UID = "run-2";

function job(
  labels: Record<string, string> = { "kueue.x-k8s.io/queue-name": "hyperpod-ns-team-a-localqueue" },
) {
  const parsed = parseJobObject({
    apiVersion: "sagemaker.amazonaws.com/v1",
    kind: "HyperPodPyTorchJob",
    metadata: { name: "llama", namespace: "hyperpod-ns-team-a", labels },
    spec: {
      elasticPolicy: { minReplicas: 1, maxReplicas: 4 },
      replicaSpecs: [{ name: "workers", replicas: 1, template: { spec: { containers: [{ name: "t" }] } } }],
    },
  });
  if (!parsed.ok) throw new Error("bad fixture");
  const out: ClusterJob = {
    ref: { namespace: "hyperpod-ns-team-a", name: "llama" },
    uid: UID,
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
  return out;
}

const condition = (type: string, status: Condition["status"]): Condition => ({
  type,
  status,
  reason: type,
  message: "",
});

/** A fake Workload cache: what create/remove did, and conditions set by the test as Kueue would. */
function fakeWorkloads() {
  const store = new Map<string, WorkloadObject>();
  const removed: string[] = [];
  const workloads: KueueWorkloads = {
    start: async () => {},
    stop: () => {},
    onChange: () => () => {},
    ownedBy: (namespace, name) =>
      [...store.values()].filter(
        (w) =>
          w.metadata.namespace === namespace &&
          w.metadata.ownerReferences?.some((owner) => owner.name === name),
      ),
    get: (namespace, name) => store.get(`${namespace}/${name}`),
    byUid: () => undefined,
    flavor: () => undefined,
    priorityClasses: () => [{ metadata: { name: "training-priority" }, value: 70 }],
    create: async (workload) => {
      store.set(`${workload.metadata.namespace}/${workload.metadata.name}`, workload);
      return workload;
    },
    clearAdmission: async () => {},
    setCondition: async () => {},
    remove: async (workload) => {
      removed.push(workload.metadata.name);
      store.delete(`${workload.metadata.namespace}/${workload.metadata.name}`);
    },
  };
  const step = (size: number, uid = UID) =>
    store.get(`hyperpod-ns-team-a/${stepWorkloadName({ name: "llama", uid }, size)}`);
  const set = (size: number, ...conditions: Condition[]) => {
    const workload = step(size);
    if (!workload) throw new Error(`no step ${size}`);
    workload.status = { conditions };
  };
  return { workloads, store, removed, step, set };
}

const admittedNow = [condition("QuotaReserved", "True"), condition("Admitted", "True")];
const evictedNow = [...admittedNow, condition("Evicted", "True")];

/** Asks for `to` until admitted, Kueue admitting each step as it is created. */
async function grant(
  fake: ReturnType<typeof fakeWorkloads>,
  capacity: ReturnType<typeof createKueueElastic>,
  j: ClusterJob,
  to: number,
): Promise<void> {
  for (let round = 0; round < 10; round += 1) {
    if ((await capacity.request(j, to)) === "admitted") return;
    for (const workload of fake.store.values()) workload.status ??= { conditions: admittedNow };
  }
  throw new Error(`not admitted at ${to} after 10 requests`);
}

describe("Kueue elastic capacity", () => {
  it("asks for the steps one at a time, each once the one below is admitted, and is admitted once all are", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    const j = job();
    expect(await capacity.request(j, 3)).toBe("pending");
    expect([fake.step(2), fake.step(3), fake.step(4)].map(Boolean)).toEqual([true, false, false]);
    expect(await capacity.request(j, 3)).toBe("pending");
    expect(fake.store.size).toBe(1);
    fake.set(2, ...admittedNow);
    expect(capacity.admitted(j)).toBe(2);
    expect(await capacity.request(j, 3)).toBe("pending");
    expect([fake.step(3), fake.step(4)].map(Boolean)).toEqual([true, false]);
    fake.set(3, ...admittedNow);
    expect(await capacity.request(j, 3)).toBe("admitted");
    expect(capacity.admitted(j)).toBe(3);
    expect(capacity.preempted(j)).toBeNull();
  });

  it("counts only the admitted steps from the bottom: a step above a waiting one adds nothing", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    const j = job();
    await grant(fake, capacity, j, 4);
    fake.set(2, condition("QuotaReserved", "False"));
    expect(capacity.admitted(j)).toBe(1);
    fake.set(2, ...admittedNow);
    expect(capacity.admitted(j)).toBe(4);
  });

  it("reports a preempted step as the largest size still whole, and releases what is above it", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    // The job runs at 4: its pods use every step.
    const j = { ...job(), status: { rebound: { elastic: { size: 4, scaling: null } } } };
    await grant(fake, capacity, j, 4);
    fake.set(3, ...evictedNow); // Kueue took step 3 and left 4 (same priority, same second)
    expect(capacity.preempted(j)).toBe(2);
    expect(await capacity.request(j, 4)).toBe("pending"); // an evicted step in use is not asked for again
    expect(fake.removed).toEqual([]);
    await capacity.release(j, 2);
    expect(fake.removed.sort()).toEqual(
      [
        stepWorkloadName({ name: "llama", uid: UID }, 3),
        stepWorkloadName({ name: "llama", uid: UID }, 4),
      ].sort(),
    );
    expect(capacity.preempted(j)).toBeNull();
    expect(capacity.admitted(j)).toBe(2);
  });

  it("gives back a step evicted before the job uses it, and the unused steps above it, and asks again in order", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    // The job runs at 2 (stabilising before a scale-up to 4); step 3 is evicted, step 4 stays admitted but
    // could not be used without step 3, and would hold the GPUs step 3 waits for.
    const j = { ...job(), status: { rebound: { elastic: { size: 2, scaling: null } } } };
    await grant(fake, capacity, j, 4);
    fake.set(3, ...evictedNow);
    expect(capacity.preempted(j)).toBeNull();
    expect(await capacity.request(j, 4)).toBe("pending");
    const name = (size: number) => stepWorkloadName({ name: "llama", uid: UID }, size);
    expect(fake.removed).toEqual([name(3), name(4)]);
    // Asked for again: a fresh Workload with no conditions, queued behind what preempted it; step 4 later.
    expect(fake.step(3)?.status?.conditions ?? []).toEqual([]);
    expect(fake.step(4)).toBeUndefined();
    expect(capacity.admitted(j)).toBe(2);
    // A step the job's pods run on is preempted as before: the job scales down first.
    fake.set(2, ...evictedNow);
    expect(capacity.preempted(j)).toBe(1);
  });

  it("names the job's own Workload as its elasticWorkloadRef (none outside a queue)", () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    expect(capacity.workloadRef?.(job())).toEqual({
      apiVersion: "kueue.x-k8s.io/v1beta1",
      kind: "Workload",
      namespace: "hyperpod-ns-team-a",
      name: workloadName({ name: "llama", uid: UID }),
    });
    const free = job({});
    free.ref = { namespace: "default", name: "llama" };
    expect(capacity.workloadRef?.(free)).toBeNull();
  });

  it("leaves another run's Workloads of the same job name alone", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    const old = { ...job(), uid: "run-1" };
    await capacity.request(old, 2);
    const j = job();
    expect(capacity.admitted(j)).toBe(1);
    await capacity.releaseAll(j);
    expect(fake.removed).toEqual([]);
    expect(fake.step(2, "run-1")).toBeDefined();
  });

  it("treats a job outside any queue as not governed: every size is there for it", async () => {
    const fake = fakeWorkloads();
    const capacity = createKueueElastic({ workloads: fake.workloads, log: quiet, ready: async () => {} });
    const free = job({});
    free.ref = { namespace: "default", name: "llama" };
    expect(await capacity.request(free, 4)).toBe("admitted");
    expect(capacity.admitted(free)).toBe(4);
    expect(fake.store.size).toBe(0);
  });
});
