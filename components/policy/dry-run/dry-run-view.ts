import type { DryRunResult } from "@/server/domain/policy";
import type { DryRunView } from "./dry-run-model";

/** The domain's dry-run answer as the panel draws it (one place to follow the domain's shape). */
export function toDryRunView(result: DryRunResult): DryRunView {
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
    notes: result.notes,
  };
}
