import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { whatIf, whyPending } from "@/server/domain/governance";
import {
  type GovernanceConfig,
  type GovernanceSnapshot,
  GPU,
  type TeamQuota,
} from "@/server/domain/governance/types";
import type { PendingHistory } from "@/server/domain/governance/why-pending";
import type { WhyPendingResponse } from "@/server/domain/operator-api/contract";
import { AppError } from "@/server/errors";
import type {
  QuotaUpdate,
  SchedulerUpdate,
  WhatIfView,
  WhyPendingView,
} from "@/server/services/governance/governance.schema";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { type CapacityReading, overcommitOf } from "./overcommit";
import { liveSnapshot } from "./overview";
import { jobKey } from "./snapshot";

/**
 * "What would this change do" and "why is this job pending", answered by the domain's own admission logic
 * (server/domain/governance) over the console's snapshot, so the answer is the decision the operator (or
 * Kueue, by the same rules) would take.
 */

function byFlavor(rows: ReadonlyArray<{ instanceType: string; resource: string; amount: number }>) {
  const out: Record<string, Record<string, number>> = {};
  for (const row of rows) out[row.instanceType] = { ...out[row.instanceType], [row.resource]: row.amount };
  return out;
}

/** A quota form's values in the domain's shape. */
export function teamQuotaOf(input: QuotaUpdate): TeamQuota {
  return {
    team: input.team,
    active: input.activation === "Enabled",
    guaranteed: byFlavor(input.resources.map((row) => ({ ...row, amount: row.guaranteed }))),
    strategy: input.strategy,
    borrowLimitPercent: input.borrowLimitPercent,
    absoluteBorrowLimit: byFlavor(
      input.resources.flatMap((row) =>
        row.absoluteBorrowLimit === null || row.absoluteBorrowLimit === undefined
          ? []
          : [{ ...row, amount: row.absoluteBorrowLimit }],
      ),
    ),
    preemptTeamTasks: input.preemptTeamTasks,
    fairShareWeight: input.fairShareWeight,
    ...(input.kueue === undefined ? {} : { kueue: input.kueue }),
  };
}

export type ProposedChange =
  | { kind: "quota"; quota: QuotaUpdate }
  | { kind: "scheduler"; scheduler: SchedulerUpdate };

/** The configuration with the change applied (a team without a quota gets one). */
export function configWith(config: GovernanceConfig, change: ProposedChange): GovernanceConfig {
  if (change.kind === "scheduler") {
    const { taskRanking, fairShare, idleResourceSharing, priorityClasses } = change.scheduler;
    return {
      ...config,
      scheduler: {
        taskRanking,
        fairShare,
        idleResourceSharing,
        priorityClasses: priorityClasses.map(({ name, weight }) => ({ name, weight })),
      },
    };
  }
  const quota = teamQuotaOf(change.quota);
  // A change that leaves the advanced Kueue settings out keeps the team's (as saving it does).
  const kept = config.teams.find((team) => team.team === quota.team)?.kueue;
  const next = quota.kueue === undefined && kept !== undefined ? { ...quota, kueue: kept } : quota;
  const others = config.teams.filter((team) => team.team !== next.team);
  return { ...config, teams: [...others, next].sort((a, b) => a.team.localeCompare(b.team)) };
}

/** A team's guaranteed GPUs over every instance type (0 when its quota is disabled). */
function gpusOf(quota: TeamQuota | undefined): number {
  if (!quota?.active) return 0;
  return Object.values(quota.guaranteed).reduce((sum, flavor) => sum + (flavor[GPU] ?? 0), 0);
}

/** Whether saving the change would over-commit the cluster's GPUs, as updateQuota judges it. */
export function overcommitView(
  config: GovernanceConfig,
  change: ProposedChange,
  capacity: CapacityReading,
): WhatIfView["overcommit"] {
  if (change.kind === "scheduler") return { state: "fits" };
  const next = teamQuotaOf(change.quota);
  const before = gpusOf(config.teams.find((team) => team.team === next.team));
  const asked = gpusOf(next);
  if (asked <= before) return { state: "fits" };
  if (!capacity.ok) return { state: "unknown", reason: capacity.reason };
  const others = config.teams
    .filter((team) => team.team !== next.team)
    .reduce((sum, team) => sum + gpusOf(team), 0);
  const found = overcommitOf({ team: next.team, before, asked, others, capacity: capacity.gpus });
  if (!found) return { state: "fits" };
  const { message, atMost } = found;
  return { state: "over", asked, others, capacity: capacity.gpus, atMost, message };
}

export function whatIfView(args: {
  snapshot: GovernanceSnapshot;
  change: ProposedChange;
  capacity: CapacityReading;
}): WhatIfView {
  const result = whatIf(args.snapshot, configWith(args.snapshot.config, args.change));
  return {
    overcommit: overcommitView(args.snapshot.config, args.change, args.capacity),
    preempted: result.preempted.map((preemption) => ({
      key: preemption.victim.key,
      team: preemption.victim.team,
      by: preemption.by,
      reason: preemption.reason,
      message: preemption.message,
    })),
    admitted: result.admitted.map((admission) => ({
      key: admission.workload.key,
      team: admission.workload.team,
      flavor: admission.flavor,
      preempts: [...admission.preempts],
      message: admission.message,
    })),
  };
}

export function whyPendingView(
  snapshot: GovernanceSnapshot,
  key: string,
  team: string,
  history: PendingHistory | null = null,
): WhyPendingView | null {
  const answer = whyPending(snapshot, key, history);
  if (!answer) return null;
  return {
    key: answer.key,
    team,
    position: answer.position,
    reason: answer.reason,
    shortfall: answer.shortfall.map((row) => ({ ...row })),
    ahead: [...answer.ahead],
    wouldRun: [...answer.wouldRun],
    text: answer.text,
  };
}

const notQueued = (key: string) => new AppError("NOT_FOUND", `job ${key} not found in a team queue`);

/**
 * "Why is this job pending" (`team`'s job): asked of the operator, which answers from the admission it holds
 * (one job, however many are queued); where it holds none (Kueue's admission, an older operator, console-only
 * mode) decided over the console's snapshot of every live job. NOT_FOUND when the job is in no team queue.
 */
export async function askWhyPending(args: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
  ref: JobRef;
  team: string;
}): Promise<WhyPendingView | null> {
  const key = jobKey(args.ref);
  const asked = await askOperator(args);
  if (asked !== null) return fromOperator(asked, key, args.team);
  const snap = await liveSnapshot(args);
  const governed = snap.jobs.get(key);
  if (governed === undefined) throw notQueued(key);
  const admission = governed.job.admission;
  const history =
    admission?.state === "Preempted" ? { reason: admission.reason, by: admission.preemptedBy } : null;
  return whyPendingView(snap.snapshot, key, args.team, history);
}

/** The operator's answer as the console shows it; NOT_FOUND when the job is in no team queue. */
export function fromOperator(asked: WhyPendingResponse, key: string, team: string): WhyPendingView | null {
  if (!asked.governed) throw notQueued(key);
  return asked.answer === null ? null : { ...asked.answer, team };
}

/** The operator's own answer; null where it holds no admission of its own. */
async function askOperator(args: {
  cluster: () => Promise<ClusterSource>;
  ref: JobRef;
}): Promise<WhyPendingResponse | null> {
  try {
    const source = await args.cluster();
    return (await source.whyPending?.(args.ref)) ?? null;
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError("UNAVAILABLE", `the operator cannot be asked: ${reason}`);
  }
}
