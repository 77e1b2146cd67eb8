import { describe, it } from "vitest";
import { decideAdmissions } from "./admission";
import { type Expect, expectDecision, gpus, pending, running, snapshotOf, team } from "./governance.fixtures";
import type { GovernanceSnapshot } from "./types";

/**
 * Admission and preemption over scenario tables: which workload runs (and in which flavor, taking which
 * victims), which is preempted and why, and why the rest wait. Quotas are GPUs in flavor "default".
 */

type Scenario = { name: string; snapshot: GovernanceSnapshot; expect: Expect };

const reclaim = snapshotOf({
  teams: [team("a", 4), team("b", 4)],
  capacity: { default: gpus(8) },
  admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
  pending: [pending({ key: "a/job", gpus: 4, at: 2 })],
});

const scenarios: Scenario[] = [
  {
    name: "borrowing: b borrows a's idle guarantee",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4)],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "b/big", gpus: 8 })],
    }),
    expect: { admit: { "b/big": [] } },
  },
  {
    name: "borrowing is capped by the borrow limit (50% of 4 = 2)",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4, { borrowLimitPercent: 50 })],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "b/big", gpus: 8 }), pending({ key: "b/six", gpus: 6, at: 1 })],
    }),
    expect: {
      admit: { "b/six": [] },
      pending: { "b/big": "ExceedsCapacity" },
      message: { "b/big": "request > maximum capacity (8 > 6)" },
    },
  },
  {
    name: "reclaim: the lender submits, the borrower is preempted",
    snapshot: reclaim,
    expect: { admit: { "a/job": ["b/big"] }, preempt: { "b/big": "InCohortReclamation" } },
  },
  {
    name: "reclaim takes from the borrowing team, never from one at its guarantee",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4), team("c", 0, { absoluteBorrowLimit: { default: gpus(4) } })],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "b/own", gpus: 4, at: 1 }), running({ key: "c/borrowed", gpus: 4, at: 0 })],
      pending: [pending({ key: "a/job", gpus: 4, at: 2 })],
    }),
    expect: { admit: { "a/job": ["c/borrowed"] }, preempt: { "c/borrowed": "InCohortReclamation" } },
  },
  {
    name: "a job that cannot preempt anyone does not use up its team's search: the one behind reclaims",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4)],
      capacity: { default: gpus(8) },
      scheduler: { fairShare: false },
      admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
      pending: [pending({ key: "a/six", gpus: 6, at: 2 }), pending({ key: "a/four", gpus: 4, at: 3 })],
    }),
    expect: {
      admit: { "a/four": ["b/big"] },
      preempt: { "b/big": "InCohortReclamation" },
      pending: { "a/six": "InsufficientQuota" },
    },
  },
  {
    name: "no reclaim beyond the guarantee: a's 6-GPU job waits instead",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4)],
      capacity: { default: gpus(8) },
      scheduler: { fairShare: false },
      admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
      pending: [pending({ key: "a/job", gpus: 6, at: 2 })],
    }),
    expect: { admit: {}, pending: { "a/job": "InsufficientQuota" } },
  },
  {
    name: "same team: higher priority preempts lower (LowerPriority)",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend" })],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/low", gpus: 8, priority: "experimentation", at: 1 })],
      pending: [pending({ key: "a/urgent", gpus: 4, priority: "inference", at: 2 })],
    }),
    expect: { admit: { "a/urgent": ["a/low"] }, preempt: { "a/low": "InClusterQueue" } },
  },
  {
    name: "same team with PreemptTeamTasks Never: it waits",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend", preemptTeamTasks: "Never" })],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/low", gpus: 8, priority: "experimentation", at: 1 })],
      pending: [pending({ key: "a/urgent", gpus: 4, priority: "inference", at: 2 })],
    }),
    expect: {
      admit: {},
      pending: { "a/urgent": "InsufficientQuota" },
      message: {
        "a/urgent": "insufficient unused quota for nvidia.com/gpu in flavor default, 4 more needed",
      },
    },
  },
  {
    name: "same team, equal priority: no preemption",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend" })],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/first", gpus: 8, priority: "training", at: 1 })],
      pending: [pending({ key: "a/second", gpus: 4, priority: "training", at: 2 })],
    }),
    expect: { admit: {}, pending: { "a/second": "InsufficientQuota" } },
  },
  {
    name: "same team: the newest of the lowest priority goes first, and only as many as needed",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend" })],
      capacity: { default: gpus(8) },
      admitted: [
        running({ key: "a/old-low", gpus: 2, priority: "experimentation", at: 1 }),
        running({ key: "a/new-low", gpus: 2, priority: "experimentation", at: 2 }),
        running({ key: "a/mid", gpus: 4, priority: "training", at: 0 }),
      ],
      pending: [pending({ key: "a/urgent", gpus: 2, priority: "inference", at: 3 })],
    }),
    expect: { admit: { "a/urgent": ["a/new-low"] }, preempt: { "a/new-low": "InClusterQueue" } },
  },
  {
    name: "task ranking off: priorities neither order nor preempt",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend" })],
      capacity: { default: gpus(8) },
      scheduler: { taskRanking: false },
      admitted: [running({ key: "a/low", gpus: 6, priority: "experimentation", at: 1 })],
      pending: [
        pending({ key: "a/early", gpus: 2, priority: "experimentation", at: 2 }),
        pending({ key: "a/urgent", gpus: 2, priority: "inference", at: 3 }),
      ],
    }),
    expect: { admit: { "a/early": [] }, pending: { "a/urgent": "WaitingBehind" } },
  },
  {
    name: "DontLend: others cannot borrow its idle GPUs",
    snapshot: snapshotOf({
      teams: [team("a", 8, { strategy: "DontLend" }), team("b", 4)],
      capacity: { default: gpus(12) },
      admitted: [running({ key: "b/own", gpus: 4, at: 1 })],
      pending: [pending({ key: "b/more", gpus: 2, at: 2 })],
    }),
    expect: {
      admit: {},
      pending: { "b/more": "InsufficientQuota" },
      message: { "b/more": "insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed" },
    },
  },
  {
    name: "LendAndBorrow lender: the same request borrows",
    snapshot: snapshotOf({
      teams: [team("a", 8), team("b", 4)],
      capacity: { default: gpus(12) },
      admitted: [running({ key: "b/own", gpus: 4, at: 1 })],
      pending: [pending({ key: "b/more", gpus: 2, at: 2 })],
    }),
    expect: { admit: { "b/more": [] } },
  },
  {
    name: "Lend: the team lends but cannot borrow",
    snapshot: snapshotOf({
      teams: [team("a", 4, { strategy: "Lend" }), team("b", 4)],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/own", gpus: 4, at: 1 })],
      pending: [pending({ key: "a/more", gpus: 2, at: 2 }), pending({ key: "b/big", gpus: 4, at: 3 })],
    }),
    expect: {
      admit: { "b/big": [] },
      pending: { "a/more": "InsufficientQuota" },
      message: { "a/more": "insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed" },
    },
  },
  {
    name: "inactive quota admits nothing; its guarantee is still lent",
    snapshot: snapshotOf({
      teams: [team("a", 4, { active: false }), team("b", 4)],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "a/job", gpus: 1 }), pending({ key: "b/big", gpus: 8, at: 1 })],
    }),
    expect: {
      admit: { "b/big": [] },
      pending: { "a/job": "QuotaInactive" },
      message: { "a/job": "ClusterQueue hyperpod-ns-a-clusterqueue is inactive" },
    },
  },
  {
    name: "unknown priority class is refused, naming the defined set",
    snapshot: snapshotOf({
      teams: [team("a", 4)],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "a/job", priority: "urgent" })],
    }),
    expect: {
      admit: {},
      pending: { "a/job": "UnknownPriorityClass" },
      message: {
        "a/job": 'priority class "urgent" is not defined in the cluster policy; defined: inference, training',
      },
    },
  },
  {
    name: "absolute borrow limit wins over the percent",
    snapshot: snapshotOf({
      teams: [
        team("a", 4),
        team("b", 4, { borrowLimitPercent: 100, absoluteBorrowLimit: { default: gpus(1) } }),
      ],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "b/six", gpus: 6 }), pending({ key: "b/five", gpus: 5, at: 1 })],
    }),
    expect: { admit: { "b/five": [] }, pending: { "b/six": "ExceedsCapacity" } },
  },
  {
    name: "idle resource sharing on: unallocated capacity is borrowable",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4, { borrowLimitPercent: 500 })],
      capacity: { default: gpus(16) },
      admitted: [running({ key: "a/own", gpus: 4 })],
      pending: [pending({ key: "b/big", gpus: 10, at: 1 })],
    }),
    expect: { admit: { "b/big": [] } },
  },
  {
    name: "idle resource sharing off: unallocated capacity is unusable",
    snapshot: snapshotOf({
      teams: [team("a", 4), team("b", 4, { borrowLimitPercent: 500 })],
      capacity: { default: gpus(16) },
      scheduler: { idleResourceSharing: false },
      admitted: [running({ key: "a/own", gpus: 4 })],
      pending: [pending({ key: "b/big", gpus: 10, at: 1 })],
    }),
    expect: { admit: {}, pending: { "b/big": "ExceedsCapacity" } },
  },
  {
    name: "the cluster's capacity caps quotas (guarantees over-committed)",
    snapshot: snapshotOf({
      teams: [team("a", 8), team("b", 8)],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/own", gpus: 6 })],
      pending: [pending({ key: "b/job", gpus: 4, at: 1 })],
    }),
    // b is within its guarantee, but a borrows nothing: there is no one to reclaim from.
    expect: {
      admit: {},
      pending: { "b/job": "InsufficientQuota" },
      message: { "b/job": "insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed" },
    },
  },
];

describe("decideAdmissions", () => {
  it.each(scenarios)("$name", ({ snapshot, expect: want }) =>
    expectDecision(decideAdmissions(snapshot), want),
  );
});
