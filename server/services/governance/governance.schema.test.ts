import { describe, expect, it } from "vitest";
import { fieldPath } from "@/server/api/trpc";
import {
  quotaUpdateInputSchema,
  schedulerUpdateInputSchema,
  setRoleInputSchema,
  whatIfInputSchema,
} from "./governance.schema";

const quota = {
  team: "llm-research",
  version: 3,
  activation: "Enabled",
  strategy: "LendAndBorrow",
  borrowLimitPercent: 50,
  preemptTeamTasks: "LowerPriority",
  fairShareWeight: 0,
  resources: [{ resource: "nvidia.com/gpu", guaranteed: 8 }],
};

/** `path: message` of each issue, as the server's error and the forms name them. */
function issues(result: {
  success: boolean;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}) {
  return (result.error?.issues ?? []).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
}

describe("governance input schemas", () => {
  it("accepts a quota, filling the default instance type", () => {
    const parsed = quotaUpdateInputSchema.parse(quota);
    expect(parsed.resources).toEqual([
      { instanceType: "default", resource: "nvidia.com/gpu", guaranteed: 8 },
    ]);
  });

  it("names each bad field of a quota, nested ones by index", () => {
    const bad = {
      ...quota,
      version: 0,
      borrowLimitPercent: 0,
      fairShareWeight: 101,
      strategy: "Share",
      resources: [
        { resource: "nvidia.com/gpu", guaranteed: 1 },
        { resource: "not a resource", guaranteed: 1.0005, instanceType: "ML.P5" },
      ],
    };
    expect(issues(quotaUpdateInputSchema.safeParse(bad))).toEqual([
      "version: expected the version you read (≥ 1)",
      "strategy: expected LendAndBorrow, Lend or DontLend",
      "borrowLimitPercent: expected a whole percent ≥ 1",
      "fairShareWeight: expected a weight between 0 and 100",
      "resources[1].instanceType: lower-case letters, digits, '.' and '-', e.g. ml.g5.12xlarge or default",
      "resources[1].resource: a Kubernetes resource name, e.g. nvidia.com/gpu, cpu or memory",
      "resources[1].guaranteed: at most 3 decimals",
    ]);
  });

  it("shows a duplicate beside another field's error", () => {
    const result = quotaUpdateInputSchema.safeParse({
      ...quota,
      fairShareWeight: -1,
      resources: [quota.resources[0], quota.resources[0]],
    });
    expect(issues(result)).toEqual([
      "fairShareWeight: expected a weight between 0 and 100",
      "resources[1].resource: nvidia.com/gpu on default is already listed at resources[0]",
    ]);
  });

  it("refuses duplicate resources and a borrow limit on a team that does not borrow", () => {
    const result = quotaUpdateInputSchema.safeParse({
      ...quota,
      strategy: "Lend",
      resources: [
        { resource: "cpu", guaranteed: 8, absoluteBorrowLimit: 4 },
        { instanceType: "default", resource: "cpu", guaranteed: 2 },
      ],
    });
    expect(issues(result)).toEqual([
      "resources[0].absoluteBorrowLimit: a team that does not borrow (Lend) has no borrow limit: remove it or choose LendAndBorrow",
      "resources[1].resource: cpu on default is already listed at resources[0]",
    ]);
  });

  it("takes a borrow limit above 500 % (Kueue has no cap) and the advanced Kueue settings", () => {
    const kueue = {
      reclaimWithinCohort: "LowerPriority",
      borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: 40 },
      lendingLimit: 2,
      queueingStrategy: "StrictFIFO",
      withinClusterQueue: "LowerOrNewerEqualPriority",
    };
    const parsed = quotaUpdateInputSchema.parse({ ...quota, borrowLimitPercent: 800, kueue });
    expect(parsed.borrowLimitPercent).toBe(800);
    expect(parsed.kueue).toEqual(kueue);
    expect(quotaUpdateInputSchema.parse(quota).kueue).toBeUndefined();
  });

  it("names each bad advanced Kueue setting", () => {
    const kueue = {
      reclaimWithinCohort: "Sometimes",
      borrowWithinCohort: { policy: "Always", maxPriorityThreshold: 101 },
      lendingLimit: -1,
      queueingStrategy: "FIFO",
      withinClusterQueue: "Newer",
    };
    expect(issues(quotaUpdateInputSchema.safeParse({ ...quota, kueue }))).toEqual([
      "kueue.reclaimWithinCohort: expected Never, LowerPriority or Any",
      "kueue.borrowWithinCohort.policy: expected Never or LowerPriority",
      "kueue.borrowWithinCohort.maxPriorityThreshold: expected a priority weight between 0 and 100",
      "kueue.lendingLimit: expected a whole number of GPUs ≥ 0",
      "kueue.queueingStrategy: expected StrictFIFO or BestEffortFIFO",
      "kueue.withinClusterQueue: expected Never, LowerPriority or LowerOrNewerEqualPriority",
    ]);
  });

  it("refuses advanced settings Kueue would refuse or the sharing strategy makes meaningless", () => {
    const kueue = {
      reclaimWithinCohort: "Never",
      borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: null },
      lendingLimit: 2,
      queueingStrategy: "BestEffortFIFO",
      withinClusterQueue: null,
    };
    expect(issues(quotaUpdateInputSchema.safeParse({ ...quota, kueue }))).toEqual([
      "kueue.borrowWithinCohort.policy: a team that never reclaims (reclaimWithinCohort Never) cannot preempt while borrowing",
    ]);
    const threshold = {
      ...kueue,
      reclaimWithinCohort: "Any",
      borrowWithinCohort: { policy: "Never", maxPriorityThreshold: 5 },
    };
    expect(issues(quotaUpdateInputSchema.safeParse({ ...quota, kueue: threshold }))).toEqual([
      "kueue.borrowWithinCohort.maxPriorityThreshold: a threshold applies only with policy LowerPriority: remove it or choose LowerPriority",
    ]);
    const borrowing = { ...kueue, reclaimWithinCohort: "Any" };
    expect(
      issues(quotaUpdateInputSchema.safeParse({ ...quota, strategy: "DontLend", kueue: borrowing })),
    ).toEqual([
      "kueue.lendingLimit: a team that does not lend (DontLend) has no lending limit: remove it or choose Lend or LendAndBorrow",
      "kueue.borrowWithinCohort.policy: a team that does not borrow (DontLend) cannot preempt while borrowing: choose Never or LendAndBorrow",
    ]);
  });

  it("holds priority classes to at most 10 unique names with weights 0..100", () => {
    const base = { version: 1, taskRanking: true, fairShare: true, idleResourceSharing: false };
    const eleven = Array.from({ length: 11 }, (_, index) => ({ name: `class-${index}`, weight: index }));
    expect(issues(schedulerUpdateInputSchema.safeParse({ ...base, priorityClasses: eleven }))).toEqual([
      "priorityClasses: at most 10 priority classes",
    ]);
    const bad = [
      { name: "Inference", weight: 90 },
      { name: "training", weight: 70.5 },
      { name: "training", weight: 10 },
    ];
    expect(issues(schedulerUpdateInputSchema.safeParse({ ...base, priorityClasses: bad }))).toEqual([
      "priorityClasses[0].name: lower-case letters, digits and '-', starting and ending with a letter or digit",
      "priorityClasses[1].weight: expected a whole number",
    ]);
    const wrongType = [
      { name: "a", weight: "high" },
      { name: "a", weight: 1 },
    ];
    expect(issues(schedulerUpdateInputSchema.safeParse({ ...base, priorityClasses: wrongType }))).toEqual([
      "priorityClasses[0].weight: expected a weight between 0 and 100",
    ]);
    expect(
      issues(
        schedulerUpdateInputSchema.safeParse({
          ...base,
          priorityClasses: [bad[2], { name: "training", weight: 1 }],
        }),
      ),
    ).toEqual(["priorityClasses[1].name: training is already defined at priorityClasses[0]"]);
  });

  it("takes a role from the four, and a what-if of either kind", () => {
    expect(issues(setRoleInputSchema.safeParse({ team: "vision", userId: "x", role: "owner" }))).toEqual([
      "userId: expected a user id",
      "role: expected viewer, engineer, team_admin or cluster_admin",
    ]);
    expect(whatIfInputSchema.safeParse({ kind: "quota", quota }).success).toBe(true);
    expect(issues(whatIfInputSchema.safeParse({ kind: "policy" }))).toEqual([
      "kind: expected kind quota or scheduler",
    ]);
  });
});
