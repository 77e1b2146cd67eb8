import { whatIf, whyPending } from "@/server/domain/governance";
import {
  type GovernanceConfig,
  type GovernanceSnapshot,
  GPU,
  type TeamQuota,
} from "@/server/domain/governance/types";
import type {
  QuotaUpdate,
  SchedulerUpdate,
  WhatIfView,
  WhyPendingView,
} from "@/server/services/governance/governance.schema";
import { type CapacityReading, overcommitOf } from "./overcommit";

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
  const next = teamQuotaOf(change.quota);
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
): WhyPendingView | null {
  const answer = whyPending(snapshot, key);
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
