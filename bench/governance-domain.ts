import { decideAdmissions, teamCapacities, whyPending } from "@/server/domain/governance";
import type {
  AdmittedWorkload,
  GovernanceSnapshot,
  TeamQuota,
  Workload,
} from "@/server/domain/governance/types";

/**
 * `npx tsx bench/governance-domain.ts [--runs 30]`: the pure governance logic alone, at the scale of issue 11
 * (10,000 pending workloads in 50 teams, 1,000 admitted): one admission cycle (decideAdmissions) just after 40
 * GPUs came free, with pending reasons and without (what the local operator runs first, admission.ts
 * CycleOptions), whyPending for the last job in the queue, and teamCapacities. Deterministic workloads
 * (seeded), fair share and task ranking on, a mix of priorities and sizes, so preemption searches run.
 * Ends with `BENCH governance-domain {json}` (milliseconds).
 */

const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 30;
const TEAMS = 50;
const PENDING = 10_000;
const ADMITTED = 1_000;
const CLASSES = [null, "experimentation", "training", "inference"] as const;

let seed = 42;
/** Restarts the seeded sequence, so both scenarios draw the same workloads. */
const reseed = () => {
  seed = 42;
};
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function quota(index: number): TeamQuota {
  return {
    team: `team-${index}`,
    active: true,
    guaranteed: { default: { "nvidia.com/gpu": 16, cpu: 256 } },
    strategy: index % 10 === 0 ? "DontLend" : "LendAndBorrow",
    borrowLimitPercent: 100,
    absoluteBorrowLimit: {},
    preemptTeamTasks: index % 3 === 0 ? "Never" : "LowerPriority",
    fairShareWeight: 1 + (index % 4),
  };
}

function workload(index: number, at: number): Workload {
  const gpus = pick([1, 1, 2, 4, 8]);
  return {
    key: `hyperpod-ns-team-${index % TEAMS}/job-${at}`,
    team: `team-${index % TEAMS}`,
    priorityClass: pick(CLASSES),
    createdAt: at,
    request: { "nvidia.com/gpu": gpus, cpu: gpus * 8 },
    flavors: null,
  };
}

/**
 * "storm": the admitted jobs have random priorities, so many pending ones may preempt (the worst case);
 * "steady": they all rank highest, as after cycles that already admitted in order (nothing to preempt).
 */
function snapshot(kind: "storm" | "steady"): GovernanceSnapshot {
  reseed();
  const admitted: AdmittedWorkload[] = [];
  let used = 0;
  for (let i = 0; i < ADMITTED; i++) {
    const priorityClass = kind === "storm" ? pick(CLASSES) : "inference";
    const w = { ...workload(i, i), request: { "nvidia.com/gpu": 1, cpu: 8 }, priorityClass };
    admitted.push({ ...w, flavor: "default", admittedAt: i });
    used += 1;
  }
  const pending = Array.from({ length: PENDING }, (_, i) => workload(i * 7 + 3, ADMITTED + i));
  return {
    config: {
      teams: Array.from({ length: TEAMS }, (_, i) => quota(i)),
      scheduler: {
        priorityClasses: [
          { name: "inference", weight: 90 },
          { name: "training", weight: 70 },
          { name: "experimentation", weight: 20 },
        ],
        taskRanking: true,
        fairShare: true,
        idleResourceSharing: true,
      },
    },
    capacity: { default: { "nvidia.com/gpu": used + 40, cpu: 100_000 } },
    admitted,
    pending,
    now: ADMITTED + PENDING,
  };
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function time<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

const round = (ms: number) => Math.round(ms * 100) / 100;

function measure(kind: "storm" | "steady") {
  const input = snapshot(kind);
  const decide: number[] = [];
  const admitOnly: number[] = [];
  const why: number[] = [];
  const capacities: number[] = [];
  let last = decideAdmissions(input);
  for (let run = 0; run < RUNS; run++) {
    const cycle = time(() => decideAdmissions(input));
    decide.push(cycle.ms);
    admitOnly.push(time(() => decideAdmissions(input, { reasons: false })).ms);
    last = cycle.value;
    const key = last.pending.at(-1)?.workload.key ?? "";
    why.push(time(() => whyPending(input, key)).ms);
    capacities.push(time(() => teamCapacities(input)).ms);
  }
  return {
    admitted_this_cycle: last.admit.length,
    preempted_this_cycle: last.preempt.length,
    still_pending: last.pending.length,
    admission_decision_p50_ms: round(percentile(decide, 50)),
    admission_decision_p99_ms: round(percentile(decide, 99)),
    admissions_only_p50_ms: round(percentile(admitOnly, 50)),
    admissions_only_p99_ms: round(percentile(admitOnly, 99)),
    why_pending_p50_ms: round(percentile(why, 50)),
    why_pending_p99_ms: round(percentile(why, 99)),
    team_capacities_p99_ms: round(percentile(capacities, 99)),
  };
}

const result = {
  pending: PENDING,
  admitted: ADMITTED,
  teams: TEAMS,
  runs: RUNS,
  steady: measure("steady"),
  storm: measure("storm"),
};
console.log(`BENCH governance-domain ${JSON.stringify(result)}`);
