import type { Blocked } from "./cycle-state";
import { kueueSettingsOf } from "./kueue-settings";
import type { Limits } from "./limits";
import type { Workload } from "./types";

/**
 * StrictFIFO teams (their `queueingStrategy`): once a workload of the team waits, everything behind it in the
 * team's queue waits too this cycle, even what would fit (Kueue: "an older workload that can't be admitted
 * will block admitting newer workloads"). A workload with an unknown priority class blocks nothing (Kueue
 * does not queue it).
 */
export class StrictHeads {
  private readonly blocked = new Map<string, string>();
  private readonly strict = new Map<string, boolean>();

  constructor(private readonly limits: Limits) {}

  private isStrict(team: string): boolean {
    let strict = this.strict.get(team);
    if (strict === undefined) {
      const quota = this.limits.quotas.get(team);
      strict = kueueSettingsOf(quota).queueingStrategy === "StrictFIFO";
      this.strict.set(team, strict);
    }
    return strict;
  }

  /** Why the workload may not take its turn, or null when it may. */
  blocking(workload: Workload): Blocked | null {
    const head = this.blocked.get(workload.team);
    if (head === undefined) return null;
    return {
      reason: "WaitingBehind",
      message: `ClusterQueue hyperpod-ns-${workload.team}-clusterqueue is StrictFIFO and ${head}, ahead of it, cannot be admitted yet`,
    };
  }

  /** After the workload's turn: `waits` when it was not admitted (for a reason its queue shares). */
  ended(workload: Workload, waits: boolean): void {
    if (waits && this.isStrict(workload.team)) this.blocked.set(workload.team, workload.key);
  }
}
