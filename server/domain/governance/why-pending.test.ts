import { describe, expect, it } from "vitest";
import { gpus, pending, running, snapshotOf, team } from "./governance.fixtures";
import { whyPending } from "./why-pending";

describe("whyPending", () => {
  it("a reclaimed borrower: what is missing, and that the lender's job finishing frees it", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 4), team("b", 4)],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "a/job", gpus: 4, at: 5 })],
        pending: [pending({ key: "b/train", gpus: 8, at: 1 })],
      }),
      "b/train",
    );
    expect(why).toEqual({
      key: "b/train",
      position: 1,
      reason: "InsufficientQuota",
      shortfall: [{ flavor: "default", resource: "nvidia.com/gpu", need: 8, available: 4, missing: 4 }],
      ahead: [],
      wouldRun: [
        "a/job finishes",
        "4 nvidia.com/gpu more come free in flavor default (jobs end or nodes are added)",
      ],
      text:
        "b/train is 1st in hyperpod-ns-b-localqueue. InsufficientQuota: couldn't assign flavors to pod set: " +
        "insufficient unused quota for nvidia.com/gpu in flavor default, 4 more needed. It needs 8 nvidia.com/gpu " +
        "in flavor default; 4 available to b now (guaranteed 4, in use 0, borrow limit 4), 4 missing. It would run " +
        "if a/job finishes; or if 4 nvidia.com/gpu more come free in flavor default (jobs end or nodes are added).",
    });
  });

  it("a team that may not borrow: a larger guarantee or borrowing would let it run", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 8), team("b", 4, { strategy: "Lend" })],
        capacity: { default: gpus(16) },
        admitted: [running({ key: "b/own", gpus: 2, at: 1 })],
        pending: [pending({ key: "b/next", gpus: 4, at: 2 })],
      }),
      "b/next",
    );
    expect(why?.shortfall).toEqual([
      { flavor: "default", resource: "nvidia.com/gpu", need: 4, available: 2, missing: 2 },
    ]);
    expect(why?.wouldRun).toEqual([
      "b/own finishes",
      "b's guaranteed nvidia.com/gpu in flavor default is raised by 2",
      "it is submitted with priority class experimentation (weight 20), preempting b/own",
      "b may borrow (LendAndBorrow, borrow limit 50%)",
    ]);
  });

  it("a higher priority class would preempt the team's lower-priority job", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 8, { strategy: "DontLend" })],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "a/low", gpus: 8, priority: "experimentation", at: 1 })],
        pending: [pending({ key: "a/new", gpus: 4, at: 2 })],
      }),
      "a/new",
    );
    expect(why?.wouldRun).toContain(
      "it is submitted with priority class training (weight 70), preempting a/low",
    );
    expect(why?.wouldRun).not.toContain(expect.stringContaining("class experimentation"));
  });

  it("lists what is ahead in the team's queue", () => {
    const snapshot = snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/own", gpus: 4, priority: "inference" })],
      pending: [
        pending({ key: "a/one", gpus: 2, at: 1, priority: "training" }),
        pending({ key: "a/two", gpus: 2, at: 0 }),
      ],
    });
    const why = whyPending(snapshot, "a/two");
    expect(why?.position).toBe(2);
    expect(why?.ahead).toEqual(["a/one"]);
    expect(why?.text).toContain("a/two is 2nd in hyperpod-ns-a-localqueue behind 1 (a/one).");
  });

  it("an inactive quota says so", () => {
    const why = whyPending(
      snapshotOf({ teams: [team("a", 4, { active: false })], pending: [pending({ key: "a/job" })] }),
      "a/job",
    );
    expect(why?.reason).toBe("QuotaInactive");
    expect(why?.wouldRun).toEqual(["a's compute quota is activated"]);
  });

  it("behind a preemption: the room comes once the preempted job has stopped", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 4), team("b", 4)],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
        pending: [pending({ key: "a/job", gpus: 2, at: 2 }), pending({ key: "a/next", gpus: 2, at: 3 })],
      }),
      "a/next",
    );
    expect(why?.reason).toBe("InsufficientQuota");
    expect(why?.wouldRun[0]).toBe("the preempted b/big finish stopping");
  });

  it("null for a job that is not pending or that this cycle admits", () => {
    const snapshot = snapshotOf({
      teams: [team("a", 4)],
      capacity: { default: gpus(4) },
      pending: [pending({ key: "a/fits", gpus: 2 })],
    });
    expect(whyPending(snapshot, "a/fits")).toBeNull();
    expect(whyPending(snapshot, "a/unknown")).toBeNull();
  });
});
