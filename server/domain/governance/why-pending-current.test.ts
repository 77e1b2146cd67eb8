import { describe, expect, it } from "vitest";
import { runCycle } from "./admission";
import { gpus, pending, running, snapshotOf, team } from "./governance.fixtures";
import type { GovernanceSnapshot, Workload } from "./types";
import { whyPending } from "./why-pending";

/**
 * "Why pending" tells what holds now (issue 37): the teams holding borrowed capacity, who preempted the job
 * and why, Kueue's pod set name, and only the ways that the admission, run again with the way applied, would
 * admit; answered from a cycle that stops at the job's turn, which decides as the full one does up to it.
 */

describe("whyPending names what holds the capacity", () => {
  it("names the teams holding borrowed capacity of what is missing", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 2), team("b", 2), team("c", 4)],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "b/big", gpus: 4, at: 1 }), running({ key: "c/own", gpus: 4, at: 2 })],
        pending: [pending({ key: "c/more", gpus: 2, at: 3 })],
        scheduler: { fairShare: false },
      }),
      "c/more",
    );
    expect(why?.reason).toBe("InsufficientQuota");
    expect(why?.text).toContain("Borrowed capacity is held by b (2 nvidia.com/gpu).");
  });

  it("says a lender reclaimed what the job had borrowed, naming the lender", () => {
    const snapshot = snapshotOf({
      teams: [team("a", 2), team("b", 2)],
      capacity: { default: gpus(4) },
      admitted: [running({ key: "a/reclaims", gpus: 2, at: 5 })],
      pending: [pending({ key: "b/borrows", gpus: 4, at: 1 })],
      scheduler: { fairShare: false },
    });
    const why = whyPending(snapshot, "b/borrows", { reason: "InCohortReclamation", by: "a/reclaims" });
    expect(why?.text).toContain(
      "It was preempted for a/reclaims: a reclaimed the guaranteed capacity it had lent.",
    );
    expect(whyPending(snapshot, "b/borrows")?.text).not.toContain("preempted");
  });

  it("names the pod set in Kueue's words", () => {
    const job: Workload = { ...pending({ key: "a/job", gpus: 4, at: 1 }), podSets: ["workers"] };
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 4, { strategy: "DontLend" })],
        capacity: { default: gpus(4) },
        admitted: [running({ key: "a/own", gpus: 2 })],
        pending: [job],
      }),
      "a/job",
    );
    expect(why?.text).toContain(
      "couldn't assign flavors to pod set workers: insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed",
    );
  });
});

describe("whyPending offers only ways that admit the job", () => {
  it("no 'more GPUs come free' for a team at its borrow limit", () => {
    const why = whyPending(
      snapshotOf({
        teams: [team("a", 4, { borrowLimitPercent: 50 }), team("b", 4)],
        capacity: { default: gpus(8) },
        admitted: [running({ key: "a/big", gpus: 6, at: 1 }), running({ key: "b/own", gpus: 2, at: 2 })],
        pending: [pending({ key: "a/more", gpus: 2, at: 3 })],
      }),
      "a/more",
    );
    expect(why?.wouldRun.some((way) => way.includes("come free"))).toBe(false);
    expect(why?.wouldRun).toContain("a/big finishes");
  });

  it("no 'more GPUs come free' when the jobs ahead would take them", () => {
    const why = whyPending(
      snapshotOf({
        // Guaranteed more than the cluster has (over-committed): the GPUs, not the quota, are short.
        teams: [team("a", 8, { strategy: "DontLend" })],
        capacity: { default: gpus(4) },
        admitted: [running({ key: "a/own", gpus: 4, at: 0, priority: "inference" })],
        pending: [pending({ key: "a/first", gpus: 2, at: 1 }), pending({ key: "a/second", gpus: 2, at: 2 })],
      }),
      "a/second",
    );
    // The 2 GPUs it lacks, once free, go to a/first, ahead of it.
    expect(why?.shortfall).toEqual([
      { flavor: "default", resource: "nvidia.com/gpu", need: 2, available: 0, missing: 2 },
    ]);
    expect(why?.wouldRun.some((way) => way.includes("come free"))).toBe(false);
    expect(why?.wouldRun).toContain("a/own finishes");
  });
});

/** A deterministic pseudo-random snapshot: teams, admitted and pending jobs of mixed sizes and classes. */
function randomSnapshot(seed: number): GovernanceSnapshot {
  let state = seed + 0x6d2b79f5;
  // mulberry32: small, well mixed in every bit.
  const next = (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const names = ["a", "b", "c"];
  const classes = [null, "experimentation", "training", "inference"];
  const teams = names.map((name) =>
    team(name, 2 + next(4), { strategy: (["LendAndBorrow", "Lend", "DontLend"] as const)[next(3)] }),
  );
  const admitted = Array.from({ length: next(4) }, (_, i) =>
    running({ key: `${names[next(3)]}/run-${i}`, gpus: 1 + next(3), at: i, priority: classes[next(4)] }),
  );
  const queued = Array.from({ length: 3 + next(8) }, (_, i) =>
    pending({ key: `${names[next(3)]}/job-${i}`, gpus: 1 + next(5), at: 10 + i, priority: classes[next(4)] }),
  );
  return snapshotOf({
    teams,
    capacity: { default: gpus(6 + next(8)) },
    admitted,
    pending: queued,
    scheduler: { fairShare: next(2) === 0 },
  });
}

describe("the cycle that stops at the traced turn", () => {
  it("decides as the full cycle does up to that turn (200 seeded snapshots)", () => {
    let compared = 0;
    for (let seed = 0; seed < 200; seed += 1) {
      const snapshot = randomSnapshot(seed);
      for (const workload of snapshot.pending) {
        const full = runCycle(snapshot, { traceKey: workload.key });
        const short = runCycle(snapshot, { traceKey: workload.key, traceOnly: true });
        const of = (run: typeof full) => {
          const waiting = run.cycle.waiting.get(workload.team) ?? [];
          const at = waiting.indexOf(workload.key);
          const trace = run.cycle.trace;
          return {
            pending: run.decision.pending.find((p) => p.workload.key === workload.key) ?? null,
            admitted: run.decision.admit.some((a) => a.workload.key === workload.key),
            ahead: at < 0 ? null : waiting.slice(0, at),
            admitsBefore: trace?.admitsBefore,
            holdsBefore: trace?.holdsBefore,
            taken: [...(trace?.taken ?? [])],
            room: trace?.ledger?.available(workload.team, "default", "nvidia.com/gpu"),
          };
        };
        expect(of(short), `seed ${seed}, ${workload.key}`).toEqual(of(full));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
