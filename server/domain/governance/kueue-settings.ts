import type { KueueSettings, SchedulerSettings, TeamQuota, WithinClusterQueue } from "./types";

/**
 * A team's Kueue knobs with the defaults filled in. The defaults are HyperPod task governance's
 * (docs/hyperpod-compatibility.md, "Task governance objects"): a lender always reclaims its guarantee
 * (`reclaimWithinCohort: Any`), a borrower preempts no other team by priority, the whole guarantee is
 * lendable, queues are BestEffortFIFO and the within-queue policy follows `PreemptTeamTasks`.
 */
export const DEFAULT_KUEUE_SETTINGS: KueueSettings = {
  reclaimWithinCohort: "Any",
  borrowWithinCohort: { policy: "Never", maxPriorityThreshold: null },
  lendingLimit: null,
  queueingStrategy: "BestEffortFIFO",
  withinClusterQueue: null,
};

export function kueueSettingsOf(quota: TeamQuota | undefined): KueueSettings {
  return { ...DEFAULT_KUEUE_SETTINGS, ...quota?.kueue };
}

/** The effective `preemption.withinClusterQueue`: the advanced setting, else `PreemptTeamTasks`. */
export function withinClusterQueueOf(quota: TeamQuota | undefined): WithinClusterQueue {
  if (quota === undefined) return "Never";
  return quota.kueue?.withinClusterQueue ?? quota.preemptTeamTasks;
}

/**
 * Whether a borrower may preempt lower-priority borrowers of other teams: `borrowWithinCohort: LowerPriority`,
 * which Kueue applies with classical preemption only ("not with Fair Sharing"), so not with fair share on.
 */
export function borrowsWithinCohort(
  ledger: { readonly limits: { readonly settings: SchedulerSettings } },
  knobs: KueueSettings,
): boolean {
  return knobs.borrowWithinCohort.policy === "LowerPriority" && !ledger.limits.settings.fairShare;
}

/**
 * Whether a job of the team could preempt more with a higher priority: within the team (unless its policy is
 * Never), or across teams where its knobs make priority count (reclaim LowerPriority, borrow within cohort).
 */
export function priorityPreempts(quota: TeamQuota | undefined): boolean {
  const knobs = kueueSettingsOf(quota);
  return (
    withinClusterQueueOf(quota) !== "Never" ||
    knobs.reclaimWithinCohort === "LowerPriority" ||
    knobs.borrowWithinCohort.policy === "LowerPriority"
  );
}
