import { describe, expect, it } from "vitest";
import { decideAdmissions } from "./admission";
import { type Expect, expectDecision, gpus, pending, running, snapshotOf, team } from "./governance.fixtures";
import type { GovernanceSnapshot } from "./types";

/** Admission order (priority, fair share, arrival), BestEffortFIFO, fair-sharing preemption, flavors. */

type Scenario = { name: string; snapshot: GovernanceSnapshot; expect: Expect };

// a borrows 2 of c's idle GPUs already; a and b each ask for the last 2 (a first).
const contested = (fairShare: boolean) =>
  snapshotOf({
    teams: [team("a", 4), team("b", 4), team("c", 4)],
    capacity: { default: gpus(12) },
    scheduler: { fairShare },
    admitted: [running({ key: "a/own", gpus: 6 }), running({ key: "b/own", gpus: 4 })],
    pending: [pending({ key: "a/next", gpus: 2, at: 1 }), pending({ key: "b/next", gpus: 2, at: 2 })],
  });

// a borrows 6 (five 2-GPU jobs); b uses 2 of its 4 and asks for 3 more (it would borrow 1).
const unfair = (fairShare: boolean) =>
  snapshotOf({
    teams: [team("a", 4), team("b", 4), team("c", 4)],
    capacity: { default: gpus(12) },
    scheduler: { fairShare },
    admitted: [
      ...[1, 2, 3, 4, 5].map((n) => running({ key: `a/j${n}`, gpus: 2, at: n })),
      running({ key: "b/own", gpus: 2 }),
    ],
    pending: [pending({ key: "b/next", gpus: 3, at: 10 })],
  });

const scenarios: Scenario[] = [
  {
    name: "fair share on: the team borrowing less goes first",
    snapshot: contested(true),
    expect: { admit: { "b/next": [] }, pending: { "a/next": "WaitingBehind" } },
  },
  {
    name: "fair share off: first come, first served",
    snapshot: contested(false),
    expect: { admit: { "a/next": [] }, pending: { "b/next": "WaitingBehind" } },
  },
  {
    name: "fair sharing preemption: the team far above its share loses its newest jobs",
    snapshot: unfair(true),
    expect: {
      admit: { "b/next": ["a/j5", "a/j4"] },
      preempt: { "a/j5": "InCohortFairSharing", "a/j4": "InCohortFairSharing" },
    },
  },
  {
    name: "without fair share, borrowing beyond the guarantee preempts no one",
    snapshot: unfair(false),
    expect: { admit: {}, pending: { "b/next": "InsufficientQuota" } },
  },
  {
    name: "priority orders across teams before arrival",
    snapshot: snapshotOf({
      teams: [team("a", 2), team("b", 2)],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/own", gpus: 2, priority: "experimentation" })],
      pending: [
        pending({ key: "a/early", gpus: 2, at: 1, priority: "experimentation" }),
        pending({ key: "b/late", gpus: 2, at: 2, priority: "inference" }),
      ],
    }),
    expect: { admit: { "b/late": [] }, pending: { "a/early": "WaitingBehind" } },
  },
  {
    name: "a workload within its team's guarantee goes before one that would borrow (Kueue), whatever the rank",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4)],
      capacity: { default: gpus(8) },
      pending: [
        pending({ key: "b/requeued", gpus: 8, at: 1, priority: "inference" }),
        pending({ key: "a/reclaim", gpus: 4, at: 2 }),
      ],
    }),
    expect: { admit: { "a/reclaim": [] }, pending: { "b/requeued": "WaitingBehind" } },
  },
  {
    name: "BestEffortFIFO: a big head does not block a smaller job behind it",
    snapshot: snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/own", gpus: 2 })],
      pending: [pending({ key: "a/big", gpus: 4, at: 1 }), pending({ key: "a/small", gpus: 2, at: 2 })],
    }),
    expect: {
      admit: { "a/small": [] },
      pending: { "a/big": "InsufficientQuota" },
      message: { "a/big": "2 more needed" },
    },
  },
  {
    name: "a waiting job's reason names what is ahead of it",
    snapshot: snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/own", gpus: 4 })],
      pending: [pending({ key: "a/one", gpus: 2, at: 1 }), pending({ key: "a/two", gpus: 2, at: 2 })],
    }),
    expect: {
      admit: {},
      pending: { "a/one": "InsufficientQuota", "a/two": "InsufficientQuota" },
      message: { "a/two": "1 ahead of it in hyperpod-ns-a-localqueue: a/one" },
    },
  },
  {
    name: "capacity a preemption frees beyond the preemptor's need is held while the victim stops",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4)],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
      pending: [pending({ key: "a/job", gpus: 2, at: 2 }), pending({ key: "a/next", gpus: 2, at: 3 })],
    }),
    expect: {
      admit: { "a/job": ["b/big"] },
      preempt: { "b/big": "InCohortReclamation" },
      pending: { "a/next": "InsufficientQuota" },
    },
  },
  {
    name: "flavors: the first flavor that fits, in the team's order",
    snapshot: snapshotOf({
      teams: [
        team("a", 0, {
          guaranteed: { "ml.g5.12xlarge": gpus(4), "ml.p4d.24xlarge": gpus(0) },
          absoluteBorrowLimit: { "ml.p4d.24xlarge": gpus(8) },
        }),
        team("b", 0, { guaranteed: { "ml.p4d.24xlarge": gpus(8) } }),
      ],
      capacity: { "ml.p4d.24xlarge": gpus(8), "ml.g5.12xlarge": gpus(4) },
      pending: [
        pending({ key: "a/small", gpus: 4, at: 1 }),
        pending({ key: "a/wide", gpus: 6, at: 2 }),
        pending({ key: "a/pinned", gpus: 6, at: 3, flavors: ["ml.g5.12xlarge"] }),
      ],
    }),
    expect: {
      admit: { "a/small": [], "a/wide": [] },
      flavor: { "a/small": "ml.g5.12xlarge", "a/wide": "ml.p4d.24xlarge" },
      pending: { "a/pinned": "ExceedsCapacity" },
    },
  },
  {
    name: "a resource no quota names is limited by capacity only; one nothing covers is NoQuota",
    snapshot: snapshotOf({
      teams: [team("a", 4)],
      capacity: { default: { ...gpus(8), cpu: 16 } },
      admitted: [running({ key: "a/own", request: { ...gpus(1), cpu: 12 } })],
      pending: [
        pending({ key: "a/cpu", request: { ...gpus(1), cpu: 6 }, at: 1 }),
        pending({ key: "a/fits", request: { ...gpus(1), cpu: 4 }, at: 2 }),
        pending({ key: "a/efa", request: { ...gpus(1), "vpc.amazonaws.com/efa": 1 }, at: 3 }),
      ],
    }),
    expect: {
      admit: { "a/fits": [] },
      pending: { "a/cpu": "InsufficientQuota", "a/efa": "NoQuota" },
      message: { "a/efa": "resource vpc.amazonaws.com/efa unavailable in ClusterQueue" },
    },
  },
  {
    name: "a team without a quota has nothing to borrow with (percent of 0)",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 0)],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "b/job", gpus: 1 }), pending({ key: "x/job", gpus: 1, at: 1 })],
    }),
    expect: {
      admit: {},
      pending: { "b/job": "NoQuota", "x/job": "NoQuota" },
      message: { "x/job": "team x has no compute quota" },
    },
  },
  {
    // The reclaim loop seen live: vision's requeued borrower (older, same priority) must not overtake the
    // job that reclaims llm's guarantee, or it is admitted, preempted again and the reclaimer never runs.
    name: "a job within its team's guarantee goes before an older one that would borrow (Kueue's entry order)",
    snapshot: snapshotOf({
      teams: [team("llm", 16), team("vision", 8, { borrowLimitPercent: 500 })],
      capacity: { default: gpus(24) },
      pending: [
        pending({ key: "vision/big", gpus: 24, at: 1 }),
        pending({ key: "llm/reclaim", gpus: 16, at: 2 }),
      ],
    }),
    expect: { admit: { "llm/reclaim": [] }, pending: { "vision/big": "WaitingBehind" } },
  },
  {
    name: "fair share off too: the job within its guarantee goes first",
    snapshot: snapshotOf({
      teams: [team("llm", 16), team("vision", 8, { borrowLimitPercent: 500 })],
      capacity: { default: gpus(24) },
      scheduler: { fairShare: false },
      pending: [
        pending({ key: "vision/big", gpus: 24, at: 1 }),
        pending({ key: "llm/reclaim", gpus: 16, at: 2 }),
      ],
    }),
    expect: { admit: { "llm/reclaim": [] }, pending: { "vision/big": "WaitingBehind" } },
  },
];

describe("decideAdmissions: order, fair share and flavors", () => {
  it.each(scenarios)("$name", ({ snapshot, expect: want }) =>
    expectDecision(decideAdmissions(snapshot), want),
  );

  it("borrowing is reported per resource above the team's unused guarantee", () => {
    const decision = decideAdmissions(
      snapshotOf({
        teams: [team("a", 4), team("b", 4)],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "b/own", gpus: 2 })],
        pending: [pending({ key: "b/big", gpus: 5 })],
      }),
    );
    expect(decision.admit[0]?.borrowing).toEqual(gpus(3));
    expect(decision.admit[0]?.message).toBe("Quota reserved in ClusterQueue hyperpod-ns-b-clusterqueue");
  });

  it("preemption messages use Kueue's words", () => {
    const decision = decideAdmissions(unfair(true));
    expect(decision.preempt.map((p) => p.message)).toEqual([
      "Preempted to accommodate a workload (b/next) due to Fair Sharing within the cohort",
      "Preempted to accommodate a workload (b/next) due to Fair Sharing within the cohort",
    ]);
    expect(decision.admit[0]?.message).toBe("Pending the preemption of 2 workload(s)");
  });

  it("positions count only the workloads still waiting in the team's queue", () => {
    const decision = decideAdmissions(
      snapshotOf({
        teams: [team("a", 4, { strategy: "DontLend" })],
        capacity: { default: gpus(4) },
        pending: [
          pending({ key: "a/fits", gpus: 2, at: 1 }),
          pending({ key: "a/big", gpus: 4, at: 2 }),
          pending({ key: "a/also-big", gpus: 3, at: 3 }),
        ],
      }),
    );
    expect(decision.pending.map((p) => [p.workload.key, p.position])).toEqual([
      ["a/big", 1],
      ["a/also-big", 2],
    ]);
  });
});
