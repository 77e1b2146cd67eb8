import { describe, expect, it } from "vitest";
import { decideAdmissions } from "./admission";
import { pending, running, snapshotOf, team } from "./governance.fixtures";
import type { AdmissionDecision, GovernanceSnapshot, TeamQuota, Workload } from "./types";

/**
 * `decideAdmissions(snapshot, { reasons: false })` sets aside a team's queue behind a workload that failed
 * (queue-tails.ts); its admissions and preemptions must be exactly those of the full cycle. Checked over
 * seeded random snapshots mixing borrowing, lending, preemption, priorities, flavors, inactive quotas and
 * unknown priority classes, and over long queues of alike jobs (where the setting aside happens).
 */

function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const CLASSES = [null, "experimentation", "training", "inference", "no-such-class"] as const;
const STRATEGIES = ["Lend", "DontLend", "LendAndBorrow"] as const;

function randomSnapshot(seed: number): GovernanceSnapshot {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const teamCount = 1 + Math.floor(random() * 6);
  const teams: TeamQuota[] = Array.from({ length: teamCount }, (_, i) =>
    team(`t${i}`, pick([0, 1, 2, 4, 8]), {
      strategy: pick(STRATEGIES),
      preemptTeamTasks: pick(["Never", "LowerPriority"] as const),
      active: random() > 0.1,
      fairShareWeight: 1 + Math.floor(random() * 3),
      guaranteed: {
        default: { "nvidia.com/gpu": pick([0, 1, 2, 4, 8]) },
        ...(random() > 0.5 ? { "ml.p5": { "nvidia.com/gpu": pick([0, 2, 4]) } } : {}),
      },
    }),
  );
  const workload = (i: number, at: number): Workload => {
    const gpus = pick([1, 1, 2, 2, 4, 8]);
    return pending({
      key: `t${Math.floor(random() * teamCount)}/w${i}`,
      at,
      priority: random() > 0.95 ? "no-such-class" : pick(CLASSES.slice(0, 4)),
      request: random() > 0.3 ? { "nvidia.com/gpu": gpus } : { "nvidia.com/gpu": gpus, cpu: gpus * 4 },
      flavors: random() > 0.8 ? [pick(["default", "ml.p5"])] : null,
    });
  };
  const admitted = Array.from({ length: Math.floor(random() * 12) }, (_, i) => ({
    ...running({ ...workload(i, i), key: `t${Math.floor(random() * teamCount)}/a${i}` }),
    flavor: pick(["default", "ml.p5"]),
  }));
  // Long runs of alike jobs per team, with odd ones between (different sizes, ranks, flavors).
  const queued = Array.from({ length: 20 + Math.floor(random() * 200) }, (_, i) =>
    random() > 0.2
      ? { ...workload(1000 + i, 100 + i), request: { "nvidia.com/gpu": 2 } }
      : workload(1000 + i, 100 + i),
  );
  return snapshotOf({
    teams,
    capacity: {
      default: { "nvidia.com/gpu": pick([4, 8, 16, 24]) },
      "ml.p5": { "nvidia.com/gpu": pick([0, 8]) },
    },
    admitted,
    pending: queued,
    scheduler: { fairShare: random() > 0.5, taskRanking: random() > 0.3 },
  });
}

const outcome = (decision: AdmissionDecision) => ({
  admit: decision.admit.map((a) => [a.workload.key, a.flavor, [...a.preempts], a.borrowing]),
  preempt: decision.preempt.map((p) => [p.victim.key, p.by, p.reason]),
});

describe("decideAdmissions without reasons", () => {
  it("admits and preempts exactly what the full cycle does (500 seeded snapshots)", () => {
    let setAside = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const snapshot = randomSnapshot(seed);
      const full = decideAdmissions(snapshot);
      const fast = decideAdmissions(snapshot, { reasons: false });
      expect(outcome(fast), `seed ${seed}`).toEqual(outcome(full));
      expect(fast.pending).toEqual([]);
      if (full.pending.length > 0) setAside++;
    }
    expect(setAside).toBeGreaterThan(400);
  });

  it("admits the next job of a long queue of alike jobs when two GPUs come free", () => {
    const teams = Array.from({ length: 5 }, (_, i) =>
      team(`t${i}`, 0, { absoluteBorrowLimit: { default: { "nvidia.com/gpu": 2 } } }),
    );
    const queued = Array.from({ length: 5000 }, (_, i) =>
      pending({ key: `t${i % 5}/q${i}`, at: 10 + i, gpus: 2 }),
    );
    const snapshot = snapshotOf({
      teams,
      capacity: { default: { "nvidia.com/gpu": 8 } },
      admitted: [running({ key: "t1/held", gpus: 2 }), running({ key: "t2/held", gpus: 2 })],
      pending: queued,
      scheduler: { fairShare: false },
    });
    const fast = decideAdmissions(snapshot, { reasons: false });
    expect(fast.admit.map((a) => a.workload.key)).toEqual(["t0/q0", "t3/q3"]);
    expect(outcome(fast)).toEqual(outcome(decideAdmissions(snapshot)));
  });
});
