import type { GovernanceConfig, SharingStrategy, TeamQuota } from "@/server/domain/governance/types";

/**
 * Task-governance scenarios as data, run unchanged by two tests that assert the same outcomes: against the
 * local back end's admission (server/operator/admission/scenarios.test.ts) and against the real Kueue
 * controller in the Kubernetes test environment (server/cluster/kubernetes/kueue/scenarios.k8s-test.ts).
 * Every team is in the one cohort; GPUs only, one flavor; the cluster has exactly the GPUs the teams are
 * guaranteed (so capacity no team is guaranteed, which only the local back end models, plays no part).
 * Defaults are HyperPod's: LendAndBorrow, fair share on with weight 1, PreemptTeamTasks LowerPriority.
 *
 * A step's events happen in order; once both engines have settled (a preempted job's pods stop at once and
 * it waits again), `admitted` holds, every other job submitted and not deleted is pending, and exactly the
 * jobs of `preempted` were preempted during the step. Where Kueue's order among jobs admitted within one
 * second is arbitrary (it orders by the second of admission, then UID), a step states the GPUs each team
 * holds (`gpus`) instead of names.
 */

export const PRIORITY_CLASSES = [
  { name: "inference", weight: 90 },
  { name: "training", weight: 70 },
  { name: "experimentation", weight: 20 },
] as const;
export type PriorityName = (typeof PRIORITY_CLASSES)[number]["name"];

export type ScenarioTeam = {
  name: string;
  gpus: number;
  strategy?: SharingStrategy;
  borrowLimitPercent?: number;
  weight?: number;
  preemptTeamTasks?: TeamQuota["preemptTeamTasks"];
};

export type ScenarioEvent =
  | { submit: string; team: string; gpus: number; priority?: PriorityName }
  | { delete: string }
  /** The team's guarantee becomes `gpus` (the cluster's capacity stays). */
  | { quota: string; gpus: number };

export type ScenarioStep = {
  events: readonly ScenarioEvent[];
  /** Exactly these jobs hold capacity (with `gpus`: only checked through it). */
  admitted?: readonly string[];
  /** team → GPUs its admitted jobs hold. */
  gpus?: Readonly<Record<string, number>>;
  /** Exactly these jobs were preempted during the step (default none). */
  preempted?: readonly string[];
  /** How many jobs were preempted during the step, when which ones is Kueue's arbitrary choice. */
  preemptedCount?: number;
};

export type Scenario = { name: string; teams: readonly ScenarioTeam[]; steps: readonly ScenarioStep[] };

export const GPU = "nvidia.com/gpu";
export const DEFAULT_PRIORITY: PriorityName = "training";

/** The scenario's governance configuration, team names prefixed by `prefix` (Kueue's run keeps them apart). */
export function configOf(teams: readonly ScenarioTeam[], prefix = ""): GovernanceConfig {
  return {
    teams: teams.map((t) => ({
      team: `${prefix}${t.name}`,
      active: true,
      guaranteed: { default: { [GPU]: t.gpus } },
      strategy: t.strategy ?? "LendAndBorrow",
      borrowLimitPercent: t.borrowLimitPercent ?? 100,
      absoluteBorrowLimit: {},
      preemptTeamTasks: t.preemptTeamTasks ?? "LowerPriority",
      fairShareWeight: t.weight ?? 1,
    })),
    scheduler: {
      priorityClasses: PRIORITY_CLASSES.map((c) => ({ ...c })),
      taskRanking: true,
      fairShare: true,
      idleResourceSharing: false,
    },
  };
}

export const capacityOf = (teams: readonly ScenarioTeam[]) => teams.reduce((sum, t) => sum + t.gpus, 0);

const ones = (team: string, from: number, to: number): ScenarioEvent[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ submit: `${team}${from + i}`, team, gpus: 1 }));

/**
 * Fair sharing by weights: a and b are guaranteed 4 GPUs each and may borrow 500 %, c lends 12. a takes all
 * 20 GPUs in 1-GPU jobs; b then asks for 10. Kueue's strategies stop where b's share with its next job would
 * exceed a's after losing one: weights 2:1 leave a 12 and b 8 (each borrows 8 and 4: shares 200 and 200);
 * 1:1 leave 10 and 10.
 */
function weighted(weightA: number, split: { a: number; b: number }): Scenario {
  return {
    name: `fair sharing with weights ${weightA}:1 splits the borrowed GPUs ${split.a}/${split.b}`,
    teams: [
      { name: "a", gpus: 4, borrowLimitPercent: 500, weight: weightA },
      { name: "b", gpus: 4, borrowLimitPercent: 500 },
      { name: "c", gpus: 12 },
    ],
    steps: [
      { events: ones("a", 1, 20), gpus: { a: 20, b: 0, c: 0 } },
      { events: ones("b", 1, 10), gpus: { ...split, c: 0 }, preemptedCount: 20 - split.a },
    ],
  };
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "a team borrows idle GPUs; the lender reclaims them; the borrower runs again when they are free",
    teams: [
      { name: "a", gpus: 4 },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "b1", team: "b", gpus: 6 }], admitted: ["b1"] },
      { events: [{ submit: "a1", team: "a", gpus: 4 }], admitted: ["a1"], preempted: ["b1"] },
      { events: [{ submit: "b2", team: "b", gpus: 4 }], admitted: ["a1", "b2"] },
      { events: [{ delete: "a1" }, { delete: "b2" }], admitted: ["b1"] },
    ],
  },
  {
    name: "borrowing stops at the borrow limit (50 % of the guarantee); a job above it never runs",
    teams: [
      { name: "a", gpus: 4, borrowLimitPercent: 50 },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "a1", team: "a", gpus: 7 }], admitted: [] },
      { events: [{ submit: "a2", team: "a", gpus: 6 }], admitted: ["a2"] },
      { events: [{ submit: "a3", team: "a", gpus: 1 }], admitted: ["a2"] },
    ],
  },
  {
    name: "DontLend: the team neither lends its idle GPUs nor borrows",
    teams: [
      { name: "a", gpus: 4, strategy: "DontLend" },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "b1", team: "b", gpus: 6 }], admitted: [] },
      { events: [{ submit: "a1", team: "a", gpus: 5 }], admitted: [] },
      {
        events: [
          { submit: "b2", team: "b", gpus: 4 },
          { submit: "a2", team: "a", gpus: 4 },
        ],
        admitted: ["b2", "a2"],
      },
    ],
  },
  {
    name: "Lend: the team lends its idle GPUs but never borrows",
    teams: [
      { name: "a", gpus: 4, strategy: "Lend" },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "a1", team: "a", gpus: 5 }], admitted: [] },
      { events: [{ submit: "b1", team: "b", gpus: 8 }], admitted: ["b1"] },
    ],
  },
  {
    name: "within a team a higher-priority job preempts a lower-priority one; Never protects the team's jobs",
    teams: [
      { name: "a", gpus: 4 },
      { name: "b", gpus: 4, preemptTeamTasks: "Never" },
    ],
    steps: [
      {
        events: [
          { submit: "a-low", team: "a", gpus: 4, priority: "experimentation" },
          { submit: "b-low", team: "b", gpus: 4, priority: "experimentation" },
        ],
        admitted: ["a-low", "b-low"],
      },
      {
        events: [
          { submit: "a-high", team: "a", gpus: 4, priority: "inference" },
          { submit: "b-high", team: "b", gpus: 4, priority: "inference" },
        ],
        admitted: ["a-high", "b-low"],
        preempted: ["a-low"],
      },
    ],
  },
  {
    name: "fair sharing's second strategy: a borrower's one big job goes when no smaller choice exists",
    teams: [
      { name: "a", gpus: 4, borrowLimitPercent: 500 },
      { name: "b", gpus: 4 },
      { name: "c", gpus: 8 },
    ],
    steps: [
      { events: [{ submit: "a-big", team: "a", gpus: 12 }], admitted: ["a-big"] },
      { events: [{ submit: "b1", team: "b", gpus: 4 }], admitted: ["a-big", "b1"] },
      // b would borrow 4 (share 250); a without its job borrows nothing (0): LessThanOrEqualToFinalShare
      // refuses; a before (500) is above b: LessThanInitialShare takes it. Requeued, it cannot come back.
      { events: [{ submit: "b2", team: "b", gpus: 4 }], admitted: ["b1", "b2"], preempted: ["a-big"] },
    ],
  },
  {
    // Kueue, fair sharing on, reclaims by its fair-sharing strategies: the lender's share is 0, so every
    // borrower's job passes, the team with the highest share first (a, 2 borrowed), whatever the priorities.
    name: "the lender reclaims from the team furthest above its share first, whatever the priorities",
    teams: [
      { name: "a", gpus: 4 },
      { name: "b", gpus: 4 },
      { name: "c", gpus: 4 },
    ],
    steps: [
      {
        events: [
          { submit: "a1", team: "a", gpus: 2 },
          { submit: "b1", team: "b", gpus: 2 },
        ],
        admitted: ["a1", "b1"],
      },
      { events: [{ submit: "a2", team: "a", gpus: 4 }], admitted: ["a1", "b1", "a2"] },
      {
        events: [{ submit: "b2", team: "b", gpus: 3, priority: "experimentation" }],
        admitted: ["a1", "b1", "a2", "b2"],
      },
      {
        events: [{ submit: "c1", team: "c", gpus: 4 }],
        admitted: ["a1", "b1", "b2", "c1"],
        preempted: ["a2"],
      },
    ],
  },
  weighted(2, { a: 12, b: 8 }),
  weighted(1, { a: 10, b: 10 }),
  {
    name: "a guarantee lowered below the team's use stops nothing, until another team reclaims",
    teams: [
      { name: "a", gpus: 8 },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "a1", team: "a", gpus: 4 }], admitted: ["a1"] },
      { events: [{ submit: "a2", team: "a", gpus: 4 }], admitted: ["a1", "a2"] },
      { events: [{ quota: "a", gpus: 4 }], admitted: ["a1", "a2"] },
      { events: [{ submit: "b1", team: "b", gpus: 4 }], admitted: ["a1", "b1"], preempted: ["a2"] },
    ],
  },
  {
    name: "a job larger than any team may hold waits; smaller ones behind it run",
    teams: [
      { name: "a", gpus: 4 },
      { name: "b", gpus: 4 },
    ],
    steps: [
      {
        events: [
          { submit: "a-huge", team: "a", gpus: 12 },
          { submit: "a1", team: "a", gpus: 2 },
        ],
        admitted: ["a1"],
      },
    ],
  },
];
