import type {
  QuotaUpdate,
  SchedulerUpdate,
  WhatIfView,
  WhyPendingView,
} from "@/server/api/routers/governance/governance.schema";
import { whatIf, whyPending } from "@/server/domain/governance";
import type { GovernanceConfig, GovernanceSnapshot, TeamQuota } from "@/server/domain/governance/types";

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

export function whatIfView(args: { snapshot: GovernanceSnapshot; change: ProposedChange }): WhatIfView {
  const result = whatIf(args.snapshot, configWith(args.snapshot.config, args.change));
  return {
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
