import type { DryRunRestart } from "@/server/domain/policy";
import type { RestartEventRow } from "@/server/store/restart-events/queries";

/**
 * A job's restart timeline as the dry-run's history (what the restart policy would do next): each restart
 * the operator made (in-place, pod replacement, full job restart), at the time it was decided; failures
 * are not restarts. A crash-loop record that stands for `count` identical restarts counts that many.
 */
const TYPES: Record<string, DryRunRestart["type"]> = {
  PLR: "PLR",
  POD_REPLACEMENT: "POD_REPLACEMENT",
  JLR: "JLR",
};

export function historyOf(rows: readonly RestartEventRow[]): DryRunRestart[] {
  return rows.flatMap((row) => {
    const type = TYPES[row.action];
    if (type === undefined) return [];
    const restart = { at: row.detectedAt.getTime(), type };
    return Array.from({ length: Math.max(1, row.count ?? 1) }, () => restart);
  });
}
