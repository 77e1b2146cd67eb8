import { expect } from "vitest";
import type {
  AdmissionDecision,
  AdmittedWorkload,
  FlavorQuantities,
  GovernanceSnapshot,
  PendingReason,
  PreemptionReason,
  SchedulerSettings,
  TeamQuota,
  Workload,
} from "./types";

/** Builders for the governance unit tests: GPUs in flavor "default" unless told otherwise. */

export const gpus = (n: number) => ({ "nvidia.com/gpu": n });

export function team(name: string, guaranteedGpus: number, extra: Partial<TeamQuota> = {}): TeamQuota {
  return {
    team: name,
    active: true,
    guaranteed: guaranteedGpus > 0 ? { default: gpus(guaranteedGpus) } : { default: gpus(0) },
    strategy: "LendAndBorrow",
    borrowLimitPercent: 100,
    absoluteBorrowLimit: {},
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 1,
    ...extra,
  };
}

export const scheduler = (extra: Partial<SchedulerSettings> = {}): SchedulerSettings => ({
  priorityClasses: [
    { name: "inference", weight: 90 },
    { name: "training", weight: 70 },
    { name: "experimentation", weight: 20 },
  ],
  taskRanking: true,
  fairShare: true,
  idleResourceSharing: true,
  ...extra,
});

type WorkloadInput = {
  key: string;
  gpus?: number;
  at?: number;
  priority?: string | null;
} & Partial<Workload>;

export function pending(input: WorkloadInput): Workload {
  const { key, at = 0, priority = null } = input;
  return {
    key,
    team: input.team ?? key.split("/")[0] ?? "",
    priorityClass: priority,
    createdAt: at,
    request: input.request ?? gpus(input.gpus ?? 1),
    flavors: input.flavors ?? null,
  };
}

export function running(input: WorkloadInput & { admittedAt?: number; flavor?: string }): AdmittedWorkload {
  return {
    ...pending(input),
    flavor: input.flavor ?? "default",
    admittedAt: input.admittedAt ?? input.at ?? 0,
  };
}

export function snapshotOf(input: {
  teams: readonly TeamQuota[];
  capacity?: FlavorQuantities;
  admitted?: readonly AdmittedWorkload[];
  pending?: readonly Workload[];
  scheduler?: Partial<SchedulerSettings>;
}): GovernanceSnapshot {
  return {
    config: { teams: input.teams, scheduler: scheduler(input.scheduler) },
    capacity: input.capacity ?? {},
    admitted: input.admitted ?? [],
    pending: input.pending ?? [],
    now: 1_000_000,
  };
}

export type Expect = {
  /** key → victims it preempts (empty: admitted outright). Exactly these are admitted. */
  admit: Record<string, string[]>;
  /** Exactly these are preempted, for these reasons. */
  preempt?: Record<string, PreemptionReason>;
  pending?: Record<string, PendingReason>;
  /** key → text its pending message contains. */
  message?: Record<string, string>;
  /** key → flavor it is admitted to. */
  flavor?: Record<string, string>;
};

export function expectDecision(decision: AdmissionDecision, want: Expect): void {
  const admitted = Object.fromEntries(decision.admit.map((a) => [a.workload.key, [...a.preempts]]));
  expect(admitted).toEqual(want.admit);
  const preempted = Object.fromEntries(decision.preempt.map((p) => [p.victim.key, p.reason]));
  expect(preempted).toEqual(want.preempt ?? {});
  const reasons = Object.fromEntries(decision.pending.map((p) => [p.workload.key, p.reason]));
  for (const [key, reason] of Object.entries(want.pending ?? {})) expect(reasons[key], key).toBe(reason);
  for (const [key, text] of Object.entries(want.message ?? {})) {
    expect(decision.pending.find((p) => p.workload.key === key)?.message, key).toContain(text);
  }
  for (const [key, flavor] of Object.entries(want.flavor ?? {})) {
    expect(decision.admit.find((a) => a.workload.key === key)?.flavor, key).toBe(flavor);
  }
}
