import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { createDb } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import type { Logger } from "@/server/log";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { createTestDatabase } from "@/test/database";
import { waitUntil } from "../testing/kube-env";
import { createKueueApi, type KueueApi } from "./client";
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { KUEUE_GROUP, KUEUE_VERSION } from "./names";
import { startKueueSync, syncKueue } from "./sync";

/**
 * Postgres → Kueue on the real apiserver with the real Kueue controller: a seeded configuration (two teams
 * with different strategies, two priority classes) becomes the objects of
 * docs/hyperpod-compatibility.md, "Task governance objects", Kueue accepts them (its ClusterQueues and
 * LocalQueues turn Active), a second sync changes nothing, drift is repaired, a removed team's objects go and
 * objects Rebound did not create stay.
 */
let env: KueueEnv;
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let api: KueueApi;

const GIB = 1024 ** 3;
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

async function seed(): Promise<void> {
  await db.priorityClass.createMany({
    data: [
      { name: "inference", weight: 90 },
      { name: "training", weight: 70 },
    ],
  });
  await db.schedulerConfig.create({ data: { id: 1, fairShareEnabled: true } });
  const a = await db.team.create({
    data: { name: "team-a", displayName: "A", namespace: "hyperpod-ns-team-a" },
  });
  const b = await db.team.create({
    data: { name: "team-b", displayName: "B", namespace: "hyperpod-ns-team-b" },
  });
  await db.computeQuota.create({
    data: {
      teamId: a.id,
      borrowStrategy: "LendAndBorrow",
      borrowLimitPercent: 50,
      preemptPolicy: "LowerPriority",
      fairShareWeight: 10,
      resources: {
        create: [
          { instanceType: "ml.g5.12xlarge", resource: "nvidia.com/gpu", guaranteed: 8 },
          { instanceType: "ml.g5.12xlarge", resource: "cpu", guaranteed: 96, absoluteBorrowLimit: 48 },
          { instanceType: "ml.g5.12xlarge", resource: "memory", guaranteed: 768 * GIB },
        ],
      },
    },
  });
  await db.computeQuota.create({
    data: {
      teamId: b.id,
      activation: "Disabled",
      borrowStrategy: "DontLend",
      preemptPolicy: "Never",
      fairShareWeight: 5,
      resources: {
        create: [
          { instanceType: "ml.g5.12xlarge", resource: "nvidia.com/gpu", guaranteed: 4 },
          { resource: "cpu", guaranteed: 8.5 },
        ],
      },
    },
  });
}

beforeAll(async () => {
  database = await createTestDatabase("kueue_sync");
  await migrate(database.url);
  db = createDb(database.url);
  await seed();
  env = await startKueueEnv({ controller: true });
  api = createKueueApi(env.operatorKubeConfig); // deploy/rbac/operator's rights only
}, 600_000);

afterAll(async () => {
  await env?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

type Cq = {
  spec: {
    cohort: string;
    resourceGroups: Array<{
      coveredResources: string[];
      flavors: Array<{ name: string; resources: Array<Record<string, string>> }>;
    }>;
    preemption: Record<string, unknown>;
    fairSharing?: { weight: string };
    stopPolicy: string;
  };
  status?: { conditions?: Array<{ type: string; status: string; reason: string }> };
};

const quota = (cq: Cq, flavor: string, resource: string) =>
  cq.spec.resourceGroups[0]?.flavors
    .find((f) => f.name === flavor)
    ?.resources.find((r) => r.name === resource);

const activeReason = (object: Record<string, unknown> | null) =>
  (object as Cq | null)?.status?.conditions?.find((c) => c.type === "Active");

async function waitActive(plural: string, name: string, namespace?: string) {
  const deadline = Date.now() + 30_000;
  let last: { status: string; reason: string } | undefined;
  while (Date.now() < deadline) {
    last = activeReason(await env.read(plural, name, namespace));
    if (last?.status === "True") return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${plural} ${name} is not Active: ${JSON.stringify(last)}`);
}

describe("syncKueue", () => {
  it("creates HyperPod task governance's objects from Postgres, and Kueue accepts them", async () => {
    const result = await syncKueue(await loadGovernanceConfig(db), api);
    expect(result.removed).toEqual([]);
    expect(result.applied).toHaveLength(2 + 2 + 2 + 2 + 2); // namespaces, flavors, classes, CQs, LQs

    const ns = await env.core.readNamespace({ name: "hyperpod-ns-team-a" });
    expect(ns.metadata?.labels).toMatchObject({
      "sagemaker.amazonaws.com/sagemaker-managed-queue": "true",
      "sagemaker.amazonaws.com/quota-allocation-id": "team-a",
    });
    const g5 = (await env.read("resourceflavors", "ml.g5.12xlarge")) as { spec: unknown };
    expect(g5.spec).toEqual({ nodeLabels: { "node.kubernetes.io/instance-type": "ml.g5.12xlarge" } });
    expect(((await env.read("resourceflavors", "default")) as { spec?: unknown }).spec ?? {}).toEqual({});
    const inference = (await env.read("workloadpriorityclasses", "inference-priority")) as { value: number };
    expect(inference.value).toBe(90);
    expect(
      ((await env.read("workloadpriorityclasses", "training-priority")) as { value: number }).value,
    ).toBe(70);

    const a = (await env.read("clusterqueues", "hyperpod-ns-team-a-clusterqueue")) as Cq;
    const b = (await env.read("clusterqueues", "hyperpod-ns-team-b-clusterqueue")) as Cq;
    expect(a.spec.cohort).toBe(b.spec.cohort);
    expect(a.spec.resourceGroups[0]?.coveredResources).toEqual(["cpu", "memory", "nvidia.com/gpu"]);
    expect(quota(a, "ml.g5.12xlarge", "nvidia.com/gpu")).toEqual({
      name: "nvidia.com/gpu",
      nominalQuota: "8",
      borrowingLimit: "4",
    });
    expect(quota(a, "ml.g5.12xlarge", "cpu")).toMatchObject({ nominalQuota: "96", borrowingLimit: "48" });
    expect(quota(a, "ml.g5.12xlarge", "memory")).toMatchObject({
      nominalQuota: "768Gi",
      borrowingLimit: "384Gi",
    });
    expect(a.spec.preemption).toMatchObject({
      reclaimWithinCohort: "Any",
      withinClusterQueue: "LowerPriority",
    });
    expect(a.spec.fairSharing).toEqual({ weight: "10" });
    expect(a.spec.stopPolicy).toBe("None");
    expect(quota(b, "ml.g5.12xlarge", "nvidia.com/gpu")).toEqual({
      name: "nvidia.com/gpu",
      nominalQuota: "4",
      borrowingLimit: "0",
      lendingLimit: "0",
    });
    expect(quota(b, "default", "cpu")).toMatchObject({ nominalQuota: "8500m", lendingLimit: "0" });
    expect(b.spec.preemption).toMatchObject({ withinClusterQueue: "Never" });
    expect(b.spec.stopPolicy).toBe("Hold");
    const lq = (await env.read("localqueues", "hyperpod-ns-team-b-localqueue", "hyperpod-ns-team-b")) as {
      spec: unknown;
    };
    expect(lq.spec).toMatchObject({ clusterQueue: "hyperpod-ns-team-b-clusterqueue" });

    // Kueue's own verdict (no validating webhook runs, so this is where a bad object would show).
    expect(await waitActive("clusterqueues", "hyperpod-ns-team-a-clusterqueue")).toMatchObject({
      reason: "Ready",
    });
    await waitActive("localqueues", "hyperpod-ns-team-a-localqueue", "hyperpod-ns-team-a");
    const held = activeReason(await env.read("clusterqueues", "hyperpod-ns-team-b-clusterqueue"));
    expect(held).toMatchObject({ status: "False", reason: "Stopped" });
  });

  it("changes nothing when run again", async () => {
    expect(await syncKueue(await loadGovernanceConfig(db), api)).toEqual({ applied: [], removed: [] });
  });

  it("puts back an object edited or deleted by hand", async () => {
    const cqApi = { group: KUEUE_GROUP, version: KUEUE_VERSION, plural: "clusterqueues" };
    await env.custom.patchClusterCustomObject(
      { ...cqApi, name: "hyperpod-ns-team-a-clusterqueue", body: { spec: { cohort: "elsewhere" } } },
      MERGE,
    );
    await env.custom.deleteNamespacedCustomObject({
      ...cqApi,
      plural: "localqueues",
      namespace: "hyperpod-ns-team-b",
      name: "hyperpod-ns-team-b-localqueue",
    });
    await env.custom.deleteClusterCustomObject({
      ...cqApi,
      plural: "workloadpriorityclasses",
      name: "training-priority",
    });

    const result = await syncKueue(await loadGovernanceConfig(db), api);
    expect(result.applied.sort()).toEqual([
      "ClusterQueue hyperpod-ns-team-a-clusterqueue",
      "LocalQueue hyperpod-ns-team-b/hyperpod-ns-team-b-localqueue",
      "WorkloadPriorityClass training-priority",
    ]);
    const a = (await env.read("clusterqueues", "hyperpod-ns-team-a-clusterqueue")) as Cq;
    expect(a.spec.cohort).not.toBe("elsewhere");
    expect(
      await env.read("localqueues", "hyperpod-ns-team-b-localqueue", "hyperpod-ns-team-b"),
    ).not.toBeNull();
    expect(await env.read("workloadpriorityclasses", "training-priority")).not.toBeNull();
  });

  it("removes a removed team's objects and never touches objects Rebound did not create", async () => {
    const foreign = {
      apiVersion: `${KUEUE_GROUP}/${KUEUE_VERSION}`,
      kind: "ClusterQueue",
      metadata: { name: "someone-elses-queue" },
      spec: { namespaceSelector: {}, resourceGroups: [] },
    };
    const cqApi = { group: KUEUE_GROUP, version: KUEUE_VERSION, plural: "clusterqueues" };
    await env.custom.createClusterCustomObject({ ...cqApi, body: foreign });
    await db.team.delete({ where: { name: "team-b" } });

    const result = await syncKueue(await loadGovernanceConfig(db), api);
    expect(result.removed.sort()).toEqual([
      "ClusterQueue hyperpod-ns-team-b-clusterqueue",
      "LocalQueue hyperpod-ns-team-b/hyperpod-ns-team-b-localqueue",
      "Namespace hyperpod-ns-team-b",
      "ResourceFlavor default",
    ]);
    // Kueue holds a ClusterQueue with its finalizer until no workload uses it, then lets it go.
    await waitUntil(
      "team B's ClusterQueue to be gone",
      async () => (await env.read("clusterqueues", "hyperpod-ns-team-b-clusterqueue")) === null,
    );
    expect(await env.read("clusterqueues", "someone-elses-queue")).not.toBeNull();
    // The namespace holds the team's jobs: it stays, without the labels Rebound gave it.
    const ns = await env.core.readNamespace({ name: "hyperpod-ns-team-b" });
    expect(ns.metadata?.labels?.["sagemaker.amazonaws.com/quota-allocation-id"]).toBeUndefined();
    expect(ns.metadata?.labels?.["app.kubernetes.io/managed-by"]).toBeUndefined();
    expect(await syncKueue(await loadGovernanceConfig(db), api)).toEqual({ applied: [], removed: [] });
  });

  it("runs as a loop: a queue deleted by hand is back within an interval, a change lands on trigger()", async () => {
    const log: Logger = { info: () => {}, warn: () => {}, error: () => {}, child: () => log };
    const sync = startKueueSync({ load: () => loadGovernanceConfig(db), api, log, intervalMs: 500 });
    try {
      await sync.trigger();
      const lqApi = { group: KUEUE_GROUP, version: KUEUE_VERSION, plural: "localqueues" };
      const lq = { namespace: "hyperpod-ns-team-a", name: "hyperpod-ns-team-a-localqueue" };
      await env.custom.deleteNamespacedCustomObject({ ...lqApi, ...lq });
      await waitUntil(
        "the LocalQueue to be back",
        () => env.read("localqueues", lq.name, lq.namespace),
        10_000,
      );

      await db.priorityClass.create({ data: { name: "research", weight: 20 } });
      await sync.trigger();
      const research = (await env.read("workloadpriorityclasses", "research-priority")) as {
        value: number;
      } | null;
      expect(research?.value).toBe(20);
    } finally {
      await sync.stop();
    }
  });
});
