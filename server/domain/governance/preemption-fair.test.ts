import { describe, expect, it } from "vitest";
import { decideAdmissions } from "./admission";
import { ledgerOf } from "./cycle-state";
import { dominantShare } from "./fair-share";
import { expectDecision, gpus, pending, running, snapshotOf, team } from "./governance.fixtures";

/**
 * Fair-sharing preemption with Kueue's strategies as deploy/kueue/ ships them
 * ([LessThanOrEqualToFinalShare, LessThanInitialShare]), and Kueue's integer dominant resource share.
 */

describe("fair-sharing preemption (Kueue's strategies)", () => {
  it("LessThanOrEqualToFinalShare: preempts when the shares come out equal (2:1 weights)", () => {
    // a (weight 2) borrows 9 of the pool of 20 (share 450 / 2 = 225); b (weight 1) asks for its 8th GPU:
    // 4 borrowed, share 200; a keeps 8 borrowed after losing one: 400 / 2 = 200. Equal: b takes it.
    const decision = decideAdmissions(
      snapshotOf({
        teams: [
          team("a", 4, { borrowLimitPercent: 500, fairShareWeight: 2 }),
          team("b", 4, { borrowLimitPercent: 500 }),
          team("c", 12),
        ],
        capacity: { default: gpus(20) },
        scheduler: { idleResourceSharing: false },
        admitted: [
          ...Array.from({ length: 13 }, (_, i) => running({ key: `a/j${i + 1}`, at: i + 1 })),
          ...Array.from({ length: 7 }, (_, i) => running({ key: `b/j${i + 1}`, at: 100 + i })),
        ],
        pending: [pending({ key: "b/next", at: 200 })],
      }),
    );
    expectDecision(decision, { admit: { "b/next": ["a/j13"] }, preempt: { "a/j13": "InCohortFairSharing" } });
  });

  it("LessThanInitialShare: takes a job whose loss leaves its team below the preemptor when nothing smaller helps", () => {
    // a borrows 8 of 16 in one job (share 500); b asks to borrow 4 (share 250). Losing the job leaves a at 0,
    // below b (the first strategy refuses), but b's share stays below a's before (the second allows it).
    const snapshot = snapshotOf({
      teams: [team("a", 4, { borrowLimitPercent: 500 }), team("b", 4), team("c", 8)],
      capacity: { default: gpus(16) },
      scheduler: { idleResourceSharing: false },
      admitted: [running({ key: "a/big", gpus: 12 }), running({ key: "b/own", gpus: 4 })],
      pending: [pending({ key: "b/next", gpus: 4, at: 10 })],
    });
    expectDecision(decideAdmissions(snapshot), {
      admit: { "b/next": ["a/big"] },
      preempt: { "a/big": "InCohortFairSharing" },
    });
    // Requeued, a's job cannot take its GPUs back: a's share with it (500) is not below b's (250).
    const after = snapshotOf({
      teams: snapshot.config.teams,
      capacity: snapshot.capacity,
      scheduler: { idleResourceSharing: false },
      admitted: [running({ key: "b/own", gpus: 4 }), running({ key: "b/next", gpus: 4, at: 10 })],
      pending: [pending({ key: "a/big", gpus: 12 })],
    });
    expectDecision(decideAdmissions(after), { admit: {}, pending: { "a/big": "InsufficientQuota" } });
  });

  it("shares are Kueue's integers: per mille of the pool, rounded down, then divided by the weight", () => {
    const ledger = ledgerOf(
      snapshotOf({
        teams: [team("a", 1, { fairShareWeight: 2 }), team("b", 2), team("c", 0, { fairShareWeight: 3 })],
        capacity: { default: gpus(3) },
        scheduler: { idleResourceSharing: false },
        admitted: [running({ key: "a/j", gpus: 2 }), running({ key: "b/j", gpus: 1 })],
      }),
    );
    expect(dominantShare(ledger, "a")).toBe(166); // 1 of 3: 333 per mille, weight 2
    expect(dominantShare(ledger, "b")).toBe(0);
    expect(dominantShare(ledger, "c", { flavor: "default", request: gpus(2), sign: 1 })).toBe(222); // 666 / 3
  });
});
