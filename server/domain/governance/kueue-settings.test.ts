import { describe, expect, it } from "vitest";
import { decideAdmissions } from "./admission";
import {
  type Expect,
  expectDecision,
  gpus,
  pending,
  running,
  scheduler,
  snapshotOf,
  team,
} from "./governance.fixtures";
import { buildLimits } from "./limits";
import type { GovernanceSnapshot, KueueSettings, TeamQuota } from "./types";
import { whatIf } from "./what-if";
import { whyPending } from "./why-pending";

/**
 * The local admission honours each advanced Kueue knob of a team (kueue-settings.ts) as Kueue documents it.
 * Priority weights: inference 90, training 70, experimentation 20. GPUs in flavor "default".
 */

type Scenario = { name: string; snapshot: GovernanceSnapshot; expect: Expect };

const knobs = (settings: Partial<KueueSettings>): Partial<TeamQuota> => ({ kueue: settings });

/** b borrows 4 of a's GPUs with a mid-priority job; a's low-priority job comes to reclaim them. */
function lenderReclaims(reclaim: KueueSettings["reclaimWithinCohort"] | null, priority: string) {
  return snapshotOf({
    teams: [team("a", 4, reclaim === null ? {} : knobs({ reclaimWithinCohort: reclaim })), team("b", 4)],
    capacity: { default: gpus(8) },
    scheduler: { fairShare: false },
    admitted: [
      running({ key: "b/own", gpus: 4, at: 0, priority: "training" }),
      running({ key: "b/borrowed", gpus: 4, at: 1, priority: "training" }),
    ],
    pending: [pending({ key: "a/job", gpus: 4, at: 2, priority })],
  });
}

/** a holds its 4 and borrows nothing; b borrows 2 of the idle 4 with a low-priority job; a's job would borrow. */
function borrower(borrow: KueueSettings["borrowWithinCohort"] | null) {
  return snapshotOf({
    teams: [
      team("a", 4, borrow === null ? {} : knobs({ borrowWithinCohort: borrow })),
      team("b", 2),
      team("c", 2),
    ],
    capacity: { default: gpus(8) },
    scheduler: { fairShare: false },
    admitted: [
      running({ key: "a/own", gpus: 4, at: 0, priority: "inference" }),
      running({ key: "b/low", gpus: 4, at: 1, priority: "experimentation" }),
    ],
    pending: [pending({ key: "a/more", gpus: 2, at: 2, priority: "inference" })],
  });
}

const scenarios: Scenario[] = [
  {
    name: "reclaimWithinCohort Any (the default): a low-priority job of the lender evicts a mid-priority borrower",
    snapshot: lenderReclaims(null, "experimentation"),
    expect: { admit: { "a/job": ["b/borrowed"] }, preempt: { "b/borrowed": "InCohortReclamation" } },
  },
  {
    name: "reclaimWithinCohort LowerPriority: a low-priority job of the lender does NOT evict a mid-priority borrower",
    snapshot: lenderReclaims("LowerPriority", "experimentation"),
    expect: { admit: {}, pending: { "a/job": "InsufficientQuota" } },
  },
  {
    name: "reclaimWithinCohort LowerPriority: a high-priority job of the lender evicts the mid-priority borrower",
    snapshot: lenderReclaims("LowerPriority", "inference"),
    expect: { admit: { "a/job": ["b/borrowed"] }, preempt: { "b/borrowed": "InCohortReclamation" } },
  },
  {
    name: "reclaimWithinCohort Never: even a high-priority job of the lender evicts none",
    snapshot: lenderReclaims("Never", "inference"),
    expect: { admit: {}, pending: { "a/job": "InsufficientQuota" } },
  },
  {
    name: "borrowWithinCohort Never (the default): a borrower preempts no other borrower",
    snapshot: borrower(null),
    expect: { admit: {}, pending: { "a/more": "InsufficientQuota" } },
  },
  {
    name: "borrowWithinCohort LowerPriority: a borrower preempts a lower-priority borrower of another team",
    snapshot: borrower({ policy: "LowerPriority", maxPriorityThreshold: null }),
    expect: { admit: { "a/more": ["b/low"] }, preempt: { "b/low": "InCohortReclaimWhileBorrowing" } },
  },
  {
    name: "borrowWithinCohort LowerPriority: nothing above maxPriorityThreshold is preempted",
    snapshot: borrower({ policy: "LowerPriority", maxPriorityThreshold: 10 }),
    expect: { admit: {}, pending: { "a/more": "InsufficientQuota" } },
  },
  {
    name: "borrowWithinCohort LowerPriority: a victim at the threshold is preempted",
    snapshot: borrower({ policy: "LowerPriority", maxPriorityThreshold: 20 }),
    expect: { admit: { "a/more": ["b/low"] }, preempt: { "b/low": "InCohortReclaimWhileBorrowing" } },
  },
  {
    name: "withinClusterQueue LowerOrNewerEqualPriority: a newer job of equal priority is preempted",
    snapshot: snapshotOf({
      teams: [team("a", 4, knobs({ withinClusterQueue: "LowerOrNewerEqualPriority" }))],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/newer", gpus: 4, at: 5, priority: "training" })],
      pending: [pending({ key: "a/older", gpus: 4, at: 1, priority: "training" })],
    }),
    expect: { admit: { "a/older": ["a/newer"] }, preempt: { "a/newer": "InClusterQueue" } },
  },
  {
    name: "withinClusterQueue LowerPriority (PreemptTeamTasks' default): an equal priority is never preempted",
    snapshot: snapshotOf({
      teams: [team("a", 4)],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/newer", gpus: 4, at: 5, priority: "training" })],
      pending: [pending({ key: "a/older", gpus: 4, at: 1, priority: "training" })],
    }),
    expect: { admit: {}, pending: { "a/older": "InsufficientQuota" } },
  },
  {
    name: "withinClusterQueue Never overrides PreemptTeamTasks LowerPriority",
    snapshot: snapshotOf({
      teams: [team("a", 4, knobs({ withinClusterQueue: "Never" }))],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/low", gpus: 4, at: 0, priority: "experimentation" })],
      pending: [pending({ key: "a/high", gpus: 4, at: 1, priority: "inference" })],
    }),
    expect: { admit: {}, pending: { "a/high": "InsufficientQuota" } },
  },
  {
    name: "queueingStrategy StrictFIFO: a head that does not fit blocks a smaller job behind it",
    snapshot: snapshotOf({
      teams: [team("a", 4, { ...knobs({ queueingStrategy: "StrictFIFO" }), strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/run", gpus: 2, at: 0 })],
      pending: [pending({ key: "a/big", gpus: 4, at: 1 }), pending({ key: "a/small", gpus: 1, at: 2 })],
    }),
    expect: {
      admit: {},
      pending: { "a/big": "InsufficientQuota", "a/small": "WaitingBehind" },
      message: { "a/small": "StrictFIFO and a/big, ahead of it" },
    },
  },
  {
    name: "queueingStrategy BestEffortFIFO (the default): the smaller job behind runs",
    snapshot: snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/run", gpus: 2, at: 0 })],
      pending: [pending({ key: "a/big", gpus: 4, at: 1 }), pending({ key: "a/small", gpus: 1, at: 2 })],
    }),
    expect: { admit: { "a/small": [] }, pending: { "a/big": "InsufficientQuota" } },
  },
  {
    name: "lendingLimit 2 of 4: b borrows only 2 of a's idle GPUs",
    snapshot: snapshotOf({
      teams: [team("a", 4, knobs({ lendingLimit: 2 })), team("b", 4, { borrowLimitPercent: 100 })],
      capacity: { default: gpus(8) },
      scheduler: { idleResourceSharing: false },
      pending: [pending({ key: "b/seven", gpus: 7, at: 1 }), pending({ key: "b/six", gpus: 6, at: 2 })],
    }),
    expect: { admit: { "b/six": [] }, pending: { "b/seven": "ExceedsCapacity" } },
  },
  {
    name: "a borrow limit above 500 % is honoured: 800 % of 1 GPU borrows 7",
    snapshot: snapshotOf({
      teams: [team("a", 7, { strategy: "Lend" }), team("b", 1, { borrowLimitPercent: 800 })],
      capacity: { default: gpus(8) },
      pending: [pending({ key: "b/eight", gpus: 8, at: 1 })],
    }),
    expect: { admit: { "b/eight": [] } },
  },
];

describe("advanced Kueue settings in the local admission", () => {
  for (const scenario of scenarios) {
    it(scenario.name, () => expectDecision(decideAdmissions(scenario.snapshot), scenario.expect));
  }

  it("admits and preempts the same with reasons off", () => {
    for (const scenario of scenarios) {
      const full = decideAdmissions(scenario.snapshot);
      const fast = decideAdmissions(scenario.snapshot, { reasons: false });
      expect(
        fast.admit.map((a) => a.workload.key),
        scenario.name,
      ).toEqual(full.admit.map((a) => a.workload.key));
      expect(
        fast.preempt.map((p) => p.victim.key),
        scenario.name,
      ).toEqual(full.preempt.map((p) => p.victim.key));
    }
  });

  it("a lending limit keeps the rest of the guarantee reserved for the team", () => {
    const limits = buildLimits(
      { teams: [team("a", 4, knobs({ lendingLimit: 1 }))], scheduler: scheduler() },
      { default: gpus(4) },
    );
    expect(limits.cells.get("a")?.get("default")?.get("nvidia.com/gpu")).toEqual({
      nominal: 4,
      borrowLimit: 4,
      lendable: 1,
    });
  });

  it("the what-if shows what reclaimWithinCohort LowerPriority would stop", () => {
    const snapshot = lenderReclaims(null, "experimentation");
    const next = {
      ...snapshot.config,
      teams: snapshot.config.teams.map((quota) =>
        quota.team === "a" ? { ...quota, kueue: { reclaimWithinCohort: "LowerPriority" as const } } : quota,
      ),
    };
    // Today a's job reclaims b's borrowed GPUs; with the knob it would not, so nothing new happens.
    expect(whatIf(snapshot, next)).toEqual({ preempted: [], admitted: [] });
    const back = whatIf({ ...snapshot, config: next }, snapshot.config);
    expect(back.preempted.map((p) => [p.victim.key, p.reason])).toEqual([
      ["b/borrowed", "InCohortReclamation"],
    ]);
  });

  it("why pending names the StrictFIFO head, and a higher priority where reclaim is LowerPriority", () => {
    const strict = scenarios.find((each) => each.name.startsWith("queueingStrategy StrictFIFO"));
    if (strict === undefined) throw new Error("the StrictFIFO scenario is missing");
    const small = whyPending(strict.snapshot, "a/small");
    expect(small?.reason).toBe("WaitingBehind");
    expect(small?.ahead).toEqual(["a/big"]);
    expect(small?.text).toContain("is StrictFIFO and a/big, ahead of it, cannot be admitted yet");

    const lender = whyPending(lenderReclaims("LowerPriority", "experimentation"), "a/job");
    expect(lender?.wouldRun).toContainEqual(expect.stringMatching(/priority class inference .*b\/borrowed/));
    expect(lender?.wouldRun.some((way) => way.includes("priority class training"))).toBe(false);
  });
});
