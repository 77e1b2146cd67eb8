import { dominantShare } from "./fair-share";
import { borrowsWithinCohort, kueueSettingsOf, withinClusterQueueOf } from "./kueue-settings";
import type { Ledger } from "./ledger";
import type { PreemptionTarget, Ranked, Search } from "./preemption-search";
import type { AdmittedWorkload } from "./types";

/**
 * Bounds that spare the preemption search (preemption.ts) its work: `couldMakeRoom` before any search, from
 * per-team usage; `Bound` during the greedy pass, so a search that can no longer succeed stops.
 */

export function withinGuarantee(
  ledger: Ledger,
  target: PreemptionTarget,
  resources: readonly string[],
): boolean {
  const { workload, flavor } = target;
  return resources.every(
    (r) =>
      !ledger.isGoverned(flavor, r) ||
      ledger.used(workload.team, flavor, r) + (workload.request[r] ?? 0) <=
        ledger.cell(workload.team, flavor, r).nominal + 1e-9,
  );
}

/**
 * How much room taking every remaining candidate could still make, per resource: the team's own limit
 * (N + B) is eased only by its own workloads, the pool and the capacity by anyone's. Candidates the rules
 * skip are deducted as the search goes, so a hopeless search stops early.
 */
export class Bound {
  private readonly own: Record<string, number> = {};
  private readonly all: Record<string, number> = {};

  constructor(
    private readonly search: Search,
    candidates: readonly Ranked[],
  ) {
    const { ledger, target } = search;
    for (const r of search.resources) {
      const slack = ledger.slack(target.workload.team, target.flavor, r);
      this.own[r] = slack === null ? Number.NEGATIVE_INFINITY : slack.limit;
      this.all[r] = slack === null ? Number.NEGATIVE_INFINITY : Math.min(slack.pool, slack.capacity);
    }
    for (const { workload } of candidates) this.count(workload, 1);
  }

  private count(workload: AdmittedWorkload, sign: 1 | -1): void {
    const same = workload.team === this.search.target.workload.team;
    for (const r of this.search.resources) {
      const amount = sign * (workload.request[r] ?? 0);
      this.all[r] = (this.all[r] ?? 0) + amount;
      if (same) this.own[r] = (this.own[r] ?? 0) + amount;
    }
  }

  skip(workload: AdmittedWorkload): void {
    this.count(workload, -1);
  }

  reachable(): boolean {
    const { request } = this.search.target.workload;
    for (const r of this.search.resources) {
      const need = (request[r] ?? 0) - 1e-9;
      if ((this.own[r] ?? 0) < need || (this.all[r] ?? 0) < need) return false;
    }
    return true;
  }
}

/**
 * A cheap bound before any search, from per-team usage alone: could taking everything the rules allow
 * (the team's own workloads when it preempts by priority; other borrowing teams' when it reclaims or fair
 * sharing is on) make room at all?
 */
export function couldMakeRoom(ledger: Ledger, target: PreemptionTarget): boolean {
  const { workload, flavor } = target;
  const resources = Object.keys(workload.request).filter((r) => (workload.request[r] ?? 0) > 0);
  const quota = ledger.limits.quotas.get(workload.team);
  const own = withinClusterQueueOf(quota) !== "Never";
  const knobs = kueueSettingsOf(quota);
  const reclaim = withinGuarantee(ledger, target, resources);
  const whileBorrowing = !reclaim && borrowsWithinCohort(ledger, knobs);
  const others =
    (reclaim && knobs.reclaimWithinCohort !== "Never") || whileBorrowing || ledger.limits.settings.fairShare;
  // Fair sharing takes only from teams whose share is at least the preemptor's with the workload.
  const above =
    reclaim || whileBorrowing
      ? Number.NEGATIVE_INFINITY
      : dominantShare(ledger, workload.team, { flavor, request: workload.request, sign: 1 });
  const from = others ? borrowersUse(ledger, { team: workload.team, flavor, resources, above }) : null;
  return resources.every((r) => {
    const slack = ledger.slack(workload.team, flavor, r);
    if (slack === null) return false;
    const need = (workload.request[r] ?? 0) - 1e-9;
    const ownUse = own ? ledger.used(workload.team, flavor, r) : 0;
    const othersUse = from?.[r] ?? 0;
    return slack.limit + ownUse >= need && Math.min(slack.pool, slack.capacity) + ownUse + othersUse >= need;
  });
}

/** Per resource, what the other teams that may lose workloads use (borrowing, share at least `above`). */
function borrowersUse(
  ledger: Ledger,
  at: { team: string; flavor: string; resources: readonly string[]; above: number },
): Record<string, number> {
  const total: Record<string, number> = {};
  for (const other of ledger.limits.quotas.keys()) {
    if (other === at.team || !ledger.isBorrowing(other, at.flavor, at.resources)) continue;
    if (!(ledger.share(other) >= at.above)) continue;
    for (const r of at.resources) total[r] = (total[r] ?? 0) + ledger.used(other, at.flavor, r);
  }
  return total;
}
