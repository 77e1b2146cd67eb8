import { decideAdmissions } from "./admission";
import type { GovernanceConfig, GovernanceSnapshot, WhatIf } from "./types";

/**
 * What a quota or scheduler change would do: one admission cycle under the current configuration and one
 * under `next`, over the same workloads and capacity; reported are the preemptions and admissions that happen
 * only under `next` (by workload key).
 */
export function whatIf(snapshot: GovernanceSnapshot, next: GovernanceConfig): WhatIf {
  const now = decideAdmissions(snapshot);
  const then = decideAdmissions({ ...snapshot, config: next });
  const preemptedNow = new Set(now.preempt.map((p) => p.victim.key));
  const admittedNow = new Set(now.admit.map((a) => a.workload.key));
  return {
    preempted: then.preempt.filter((p) => !preemptedNow.has(p.victim.key)),
    admitted: then.admit.filter((a) => !admittedNow.has(a.workload.key)),
  };
}
