import type {
  GovernanceConfig,
  KueueSettings,
  SharingStrategy,
  TeamQuota,
} from "@/server/domain/governance/types";

/**
 * Task-governance scenarios as data, run unchanged by two tests that assert the same outcomes: against the
 * local back end's admission (server/operator/admission/scenarios.test.ts) and against the real Kueue
 * controller in the Kubernetes test environment (server/cluster/kubernetes/kueue/scenarios.k8s-test.ts).
 * Every team is in the one cohort; GPUs only, one flavor; the cluster has exactly the GPUs the teams are
 * guaranteed unless a scenario says `capacity` (the rest is idle capacity, which teams share only with idle
 * resource sharing on: Kueue's Cohort quota). Defaults are HyperPod's: LendAndBorrow, fair share on with
 * weight 1, PreemptTeamTasks LowerPriority, task ranking on, idle resource sharing off.
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
  /** Kueue's knobs (advanced team settings); unset ones keep their defaults. */
  kueue?: Partial<KueueSettings>;
};

/** An elastic job's policy: `min` to `max` pods in steps of `step` (its `gpus` are per pod). */
export type ScenarioElastic = { min: number; max: number; step: number };

export type ScenarioEvent =
  | { submit: string; team: string; gpus: number; priority?: PriorityName; elastic?: ScenarioElastic }
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

export type Scenario = {
  name: string;
  teams: readonly ScenarioTeam[];
  /** The cluster's GPUs (default: the sum of the guarantees). */
  capacity?: number;
  scheduler?: { taskRanking?: boolean; idleResourceSharing?: boolean };
  steps: readonly ScenarioStep[];
};

export const GPU = "nvidia.com/gpu";
export const DEFAULT_PRIORITY: PriorityName = "training";

/** The scenario's governance configuration, team names prefixed by `prefix` (Kueue's run keeps them apart). */
export function configOf(
  teams: readonly ScenarioTeam[],
  prefix = "",
  scheduler: Scenario["scheduler"] = {},
): GovernanceConfig {
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
      ...(t.kueue ? { kueue: t.kueue } : {}),
    })),
    scheduler: {
      priorityClasses: PRIORITY_CLASSES.map((c) => ({ ...c })),
      taskRanking: scheduler.taskRanking ?? true,
      fairShare: true,
      idleResourceSharing: scheduler.idleResourceSharing ?? false,
    },
  };
}

/** The cluster's GPUs in the scenario. */
export const capacityOf = (scenario: Scenario) =>
  scenario.capacity ?? scenario.teams.reduce((sum, t) => sum + t.gpus, 0);

/** Idle capacity (4 GPUs no team is guaranteed): a borrows it only with idle resource sharing on. */
function idleSharing(on: boolean): Scenario {
  const teams = [
    { name: "a", gpus: 4, borrowLimitPercent: 500 },
    { name: "b", gpus: 4 },
  ];
  return {
    name: `idle resource sharing ${on ? "on: a team borrows" : "off: nobody uses"} the GPUs no team is guaranteed`,
    teams,
    capacity: 12,
    scheduler: { idleResourceSharing: on },
    steps: on
      ? [
          { events: [{ submit: "a1", team: "a", gpus: 12 }], admitted: ["a1"] },
          { events: [{ submit: "b1", team: "b", gpus: 4 }], admitted: ["b1"], preempted: ["a1"] },
          { events: [{ submit: "a2", team: "a", gpus: 8 }], admitted: ["b1", "a2"] },
        ]
      : [
          { events: [{ submit: "a1", team: "a", gpus: 12 }], admitted: [] },
          { events: [{ submit: "a2", team: "a", gpus: 8 }], admitted: ["a2"] },
        ],
  };
}

/**
 * One team's queue with task ranking on (HyperPod's default: priority orders the queue and preempts within
 * the team) or off (first come, first served: no preemption, the older job first whatever its priority).
 */
function taskRanking(on: boolean): Scenario {
  return {
    name: on
      ? "task ranking on: the higher-priority job goes first and preempts within the team"
      : "task ranking off (first come, first served): no preemption, the older job goes first",
    teams: [
      { name: "a", gpus: 4, strategy: "DontLend" },
      { name: "b", gpus: 4, strategy: "DontLend" },
    ],
    scheduler: { taskRanking: on },
    steps: [
      { events: [{ submit: "a-run", team: "a", gpus: 4, priority: "training" }], admitted: ["a-run"] },
      // Apart, so that Kueue (which orders by creation to the second) sees a-old first.
      { events: [{ submit: "a-old", team: "a", gpus: 4, priority: "experimentation" }], admitted: ["a-run"] },
      {
        events: [{ submit: "a-new", team: "a", gpus: 4, priority: "inference" }],
        admitted: on ? ["a-new"] : ["a-run"],
        preempted: on ? ["a-run"] : [],
      },
      { events: [{ delete: on ? "a-new" : "a-run" }], admitted: on ? ["a-run"] : ["a-old"] },
    ],
  };
}

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

/** An elastic job of 1-GPU pods, 2 to 8 of them in steps of 2. */
const ELASTIC = { min: 2, max: 8, step: 2 };

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "an elastic job grows into idle GPUs, shrinks when the lender reclaims them, and grows back",
    teams: [
      { name: "a", gpus: 4 },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "e", team: "a", gpus: 1, elastic: ELASTIC }], gpus: { a: 8, b: 0 } },
      { events: [{ submit: "b1", team: "b", gpus: 4 }], admitted: ["e", "b1"], gpus: { a: 4, b: 4 } },
      { events: [{ delete: "b1" }], gpus: { a: 8, b: 0 } },
    ],
  },
  {
    name: "a job of the elastic job's class takes its steps, never its minimum",
    teams: [{ name: "a", gpus: 8, strategy: "DontLend" }],
    steps: [
      { events: [{ submit: "e", team: "a", gpus: 1, elastic: ELASTIC }], gpus: { a: 8 } },
      { events: [{ submit: "j1", team: "a", gpus: 4 }], admitted: ["e", "j1"], gpus: { a: 8 } },
      { events: [{ submit: "j2", team: "a", gpus: 4 }], admitted: ["e", "j1"], gpus: { a: 8 } },
      { events: [{ delete: "j1" }], admitted: ["e", "j2"], gpus: { a: 8 } },
    ],
  },
  {
    name: "a lending limit: the team lends only part of its idle guarantee, and keeps the rest for itself",
    teams: [
      { name: "a", gpus: 4, kueue: { lendingLimit: 2 } },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "b1", team: "b", gpus: 7 }], admitted: [] },
      { events: [{ submit: "b2", team: "b", gpus: 6 }], admitted: ["b2"] },
      { events: [{ submit: "a1", team: "a", gpus: 2 }], admitted: ["b2", "a1"] },
      { events: [{ submit: "a2", team: "a", gpus: 2 }], admitted: ["a1", "a2"], preempted: ["b2"] },
    ],
  },
  {
    name: "reclaim within cohort LowerPriority (a Kueue knob): the lender's lower-priority job does not reclaim",
    teams: [
      { name: "a", gpus: 4, kueue: { reclaimWithinCohort: "LowerPriority" } },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "b1", team: "b", gpus: 8 }], admitted: ["b1"] },
      {
        events: [{ submit: "a-low", team: "a", gpus: 4, priority: "experimentation" }],
        admitted: ["b1"],
      },
      {
        // b1 gone, a-low borrows the 4 GPUs b leaves idle (b1 needs 8 and can no longer have them).
        events: [{ submit: "a-high", team: "a", gpus: 4, priority: "inference" }],
        admitted: ["a-high", "a-low"],
        preempted: ["b1"],
      },
    ],
  },
  {
    name: "reclaim within cohort Never (a Kueue knob): the lender waits for its GPUs to come back",
    teams: [
      { name: "a", gpus: 4, kueue: { reclaimWithinCohort: "Never" } },
      { name: "b", gpus: 4 },
    ],
    steps: [
      { events: [{ submit: "b1", team: "b", gpus: 8 }], admitted: ["b1"] },
      { events: [{ submit: "a1", team: "a", gpus: 4, priority: "inference" }], admitted: ["b1"] },
      { events: [{ delete: "b1" }], admitted: ["a1"] },
    ],
  },
  idleSharing(true),
  idleSharing(false),
  taskRanking(true),
  taskRanking(false),
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
