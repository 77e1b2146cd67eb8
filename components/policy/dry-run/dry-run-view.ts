import type { PolicyDryRun } from "@/server/services/policies/rank-dry-run";
import type { DryRunView } from "./dry-run-model";

/** The server's dry-run answer as the panel draws it (one place to follow the domain's shape). */
export function toDryRunView(result: PolicyDryRun): DryRunView {
  return {
    start: result.start,
    end: result.end,
    lines: result.lines,
    rules: result.rules.map((rule) => ({
      name: rule.name,
      matches: rule.matches,
      matchCount: rule.matchCount,
      changes: rule.transitions,
    })),
    fault: result.fault
      ? {
          rule: result.fault.rule,
          state: result.fault.state,
          at: result.fault.at,
          lineNumber: result.fault.lineNumber,
          reason: result.fault.reason,
        }
      : null,
    nextAction: result.nextAction,
    deadlines: result.deadlines.map((deadline) => ({ rule: deadline.rule, at: deadline.at })),
    live: result.rank
      ? {
          rank: result.rank.rank,
          pod: result.rank.pod,
          localRank: result.rank.localRank,
          watched: result.rank.watched,
          startedAt: result.rank.startedAt,
          readAt: result.rank.readAt,
        }
      : null,
    notes: result.notes,
  };
}
