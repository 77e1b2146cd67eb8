import { describe, expect, it } from "vitest";
import type { GovernanceConfig, TeamQuota } from "@/server/domain/governance/types";
import { kueueObjectsOf } from "./objects";
import { covers } from "./sync";

const team = (name: string, over: Partial<TeamQuota>): TeamQuota => ({
  team: name,
  active: true,
  guaranteed: {},
  strategy: "LendAndBorrow",
  borrowLimitPercent: 50,
  absoluteBorrowLimit: {},
  preemptTeamTasks: "LowerPriority",
  fairShareWeight: 0,
  ...over,
});

const config = (teams: TeamQuota[], fairShare = true): GovernanceConfig => ({
  teams,
  scheduler: {
    priorityClasses: [{ name: "inference", weight: 90 }],
    taskRanking: true,
    fairShare,
    idleResourceSharing: true,
  },
});

const cq = (objects: ReturnType<typeof kueueObjectsOf>, name: string) =>
  objects.clusterQueues.find((q) => q.metadata.name === `hyperpod-ns-${name}-clusterqueue`);

describe("kueueObjectsOf (HyperPod task governance's objects)", () => {
  it("covers every flavor and resource any team names, in one resource group, 0 where a team has none", () => {
    const objects = kueueObjectsOf(
      config([
        team("a", { guaranteed: { "ml.p5.48xlarge": { "nvidia.com/gpu": 16 } } }),
        team("b", { guaranteed: { default: { cpu: 4 } } }),
      ]),
    );
    const a = cq(objects, "a");
    expect(a?.spec.resourceGroups).toEqual([
      {
        coveredResources: ["cpu", "nvidia.com/gpu"],
        flavors: [
          {
            name: "default",
            resources: [
              { name: "cpu", nominalQuota: "0", borrowingLimit: "0" },
              { name: "nvidia.com/gpu", nominalQuota: "0", borrowingLimit: "0" },
            ],
          },
          {
            name: "ml.p5.48xlarge",
            resources: [
              { name: "cpu", nominalQuota: "0", borrowingLimit: "0" },
              { name: "nvidia.com/gpu", nominalQuota: "16", borrowingLimit: "8" },
            ],
          },
        ],
      },
    ]);
    expect(objects.flavors.map((f) => [f.metadata.name, f.spec])).toEqual([
      ["default", {}],
      ["ml.p5.48xlarge", { nodeLabels: { "node.kubernetes.io/instance-type": "ml.p5.48xlarge" } }],
    ]);
  });

  it("maps Lend to no borrowing, DontLend to no borrowing and no lending, an absolute limit over the percent", () => {
    const gpus = { "ml.g5.12xlarge": { "nvidia.com/gpu": 8 } };
    const objects = kueueObjectsOf(
      config([
        team("lend", { guaranteed: gpus, strategy: "Lend" }),
        team("keep", { guaranteed: gpus, strategy: "DontLend" }),
        team("both", {
          guaranteed: gpus,
          absoluteBorrowLimit: { "ml.g5.12xlarge": { "nvidia.com/gpu": 2 } },
        }),
      ]),
    );
    const gpu = (name: string) => cq(objects, name)?.spec.resourceGroups[0]?.flavors[0]?.resources[0];
    expect(gpu("lend")).toEqual({ name: "nvidia.com/gpu", nominalQuota: "8", borrowingLimit: "0" });
    expect(gpu("keep")).toEqual({
      name: "nvidia.com/gpu",
      nominalQuota: "8",
      borrowingLimit: "0",
      lendingLimit: "0",
    });
    expect(gpu("both")).toEqual({ name: "nvidia.com/gpu", nominalQuota: "8", borrowingLimit: "2" });
  });

  it("maps preemption, fair share and activation", () => {
    const on = kueueObjectsOf(
      config([team("a", { preemptTeamTasks: "Never", fairShareWeight: 30, active: false })]),
    );
    expect(cq(on, "a")?.spec).toMatchObject({
      cohort: "hyperpod-teams",
      preemption: { reclaimWithinCohort: "Any", withinClusterQueue: "Never" },
      fairSharing: { weight: "30" },
      stopPolicy: "Hold",
    });
    const off = kueueObjectsOf(config([team("a", {})], false));
    expect(cq(off, "a")?.spec.fairSharing).toBeUndefined();
    expect(cq(off, "a")?.spec).toMatchObject({
      preemption: { withinClusterQueue: "LowerPriority" },
      stopPolicy: "None",
    });
  });

  it("names the namespace, local queue and priority classes as HyperPod does, all labelled as Rebound's", () => {
    const objects = kueueObjectsOf(config([team("ml-research", {})]));
    expect(objects.namespaces[0]?.metadata).toEqual({
      name: "hyperpod-ns-ml-research",
      labels: {
        "app.kubernetes.io/managed-by": "rebound",
        "sagemaker.amazonaws.com/sagemaker-managed-queue": "true",
        "sagemaker.amazonaws.com/quota-allocation-id": "ml-research",
      },
    });
    expect(objects.localQueues[0]).toMatchObject({
      metadata: { name: "hyperpod-ns-ml-research-localqueue", namespace: "hyperpod-ns-ml-research" },
      spec: { clusterQueue: "hyperpod-ns-ml-research-clusterqueue" },
    });
    expect(objects.priorityClasses[0]).toMatchObject({ metadata: { name: "inference-priority" }, value: 90 });
    const all = [
      ...objects.namespaces,
      ...objects.clusterQueues,
      ...objects.localQueues,
      ...objects.priorityClasses,
    ];
    expect(all.every((o) => o.metadata.labels["app.kubernetes.io/managed-by"] === "rebound")).toBe(true);
  });
});

describe("kueueObjectsOf: the advanced Kueue settings of a team and the scheduler's switches", () => {
  const gpus = { default: { "nvidia.com/gpu": 8 } };

  it("leaves HyperPod's ClusterQueue as it was when no advanced setting is given", () => {
    const spec = cq(kueueObjectsOf(config([team("a", { guaranteed: gpus })])), "a")?.spec;
    expect(spec?.queueingStrategy).toBe("BestEffortFIFO");
    expect(spec?.preemption).toEqual({
      reclaimWithinCohort: "Any",
      withinClusterQueue: "LowerPriority",
      borrowWithinCohort: { policy: "Never" },
    });
    expect(spec?.resourceGroups[0]?.flavors[0]?.resources[0]).toEqual({
      name: "nvidia.com/gpu",
      nominalQuota: "8",
      borrowingLimit: "4",
    });
  });

  it("writes reclaimWithinCohort, borrowWithinCohort, withinClusterQueue and queueingStrategy", () => {
    const spec = cq(
      kueueObjectsOf(
        config(
          [
            team("a", {
              guaranteed: gpus,
              kueue: {
                reclaimWithinCohort: "LowerPriority",
                borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: 50 },
                withinClusterQueue: "LowerOrNewerEqualPriority",
                queueingStrategy: "StrictFIFO",
              },
            }),
          ],
          false,
        ),
      ),
      "a",
    )?.spec;
    expect(spec?.queueingStrategy).toBe("StrictFIFO");
    expect(spec?.preemption).toEqual({
      reclaimWithinCohort: "LowerPriority",
      withinClusterQueue: "LowerOrNewerEqualPriority",
      borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: 50 },
    });
    const never = cq(kueueObjectsOf(config([team("b", { kueue: { reclaimWithinCohort: "Never" } })])), "b");
    expect(never?.spec.preemption.reclaimWithinCohort).toBe("Never");
  });

  it("writes a partial lending limit of GPUs, never above the guarantee, and a borrow limit above 500 %", () => {
    const objects = kueueObjectsOf(
      config([
        team("part", { guaranteed: gpus, kueue: { lendingLimit: 3 }, borrowLimitPercent: 800 }),
        team("all", { guaranteed: gpus, kueue: { lendingLimit: 20 } }),
      ]),
    );
    const gpu = (name: string) => cq(objects, name)?.spec.resourceGroups[0]?.flavors[0]?.resources[0];
    expect(gpu("part")).toEqual({
      name: "nvidia.com/gpu",
      nominalQuota: "8",
      borrowingLimit: "64",
      lendingLimit: "3",
    });
    expect(gpu("all")).toEqual({ name: "nvidia.com/gpu", nominalQuota: "8", borrowingLimit: "4" });
  });

  it("makes every priority class worth 0 when task ranking is off (first come, first served)", () => {
    const ranked = kueueObjectsOf(config([team("a", {})]));
    expect(ranked.priorityClasses.map((c) => c.value)).toEqual([90]);
    const fcfs = kueueObjectsOf({
      teams: [team("a", {})],
      scheduler: { ...config([]).scheduler, taskRanking: false },
    });
    expect(fcfs.priorityClasses.map((c) => [c.metadata.name, c.value])).toEqual([["inference-priority", 0]]);
  });
});

describe("covers (what the sync treats as already in place)", () => {
  it("ignores fields the server added and notices changed, missing or reordered ones", () => {
    const desired = { spec: { cohort: "x", groups: [{ name: "a" }, { name: "b" }] } };
    expect(
      covers({ spec: { cohort: "x", extra: 1, groups: [{ name: "a", d: 1 }, { name: "b" }] } }, desired),
    ).toBe(true);
    expect(covers({ spec: { cohort: "y", groups: [{ name: "a" }, { name: "b" }] } }, desired)).toBe(false);
    expect(covers({ spec: { cohort: "x", groups: [{ name: "b" }, { name: "a" }] } }, desired)).toBe(false);
    expect(covers({ spec: { cohort: "x", groups: [{ name: "a" }] } }, desired)).toBe(false);
    expect(covers(undefined, desired)).toBe(false);
  });
});
