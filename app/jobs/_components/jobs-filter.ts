import type { JobRow } from "@/server/domain/jobs/pages";

export type JobFilters = { team: string; status: string; namespace: string };

/**
 * Filters keep the server's order (namespace, then name), which never depends on live values, so rows do
 * not jump when a job's status or counts change.
 */
export function filterJobs(rows: readonly JobRow[], filters: JobFilters): JobRow[] {
  return rows.filter(
    (row) =>
      (!filters.team || row.team === filters.team) &&
      (!filters.status || row.status === filters.status) &&
      (!filters.namespace || row.namespace === filters.namespace),
  );
}

export function statusTone(status: string): "ok" | "warn" | "bad" {
  if (status === "Running" || status === "Completed" || status === "Succeeded") return "ok";
  if (status === "Failed") return "bad";
  return "warn";
}
