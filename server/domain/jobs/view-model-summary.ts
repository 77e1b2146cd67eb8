import { countHealthyRanks } from "@/server/domain/console/job-ranks";
import type { LiveJob } from "@/server/domain/operator-api/contract";

/**
 * What the jobs list and a job's page header both show, computed once here from the same inputs so the
 * two agree: the status (with a back-off's time to the next try), why the job is not running, ranks
 * healthy of total, and restarts per type. The list (server/services/jobs/queries.ts listJobRows) and
 * the page (buildJobPage) each call these; neither counts on its own.
 */

export type RestartTotals = { plr: number; podReplacement: number; jlr: number };

export type JobSummaryParts = {
  status: string;
  phase: string;
  /** Why it is not running (the full text, new lines included); null while it runs. */
  reason: string | null;
  /** Epoch ms the crash-loop back-off ends, while the job waits one out; null otherwise. */
  backOffUntil: number | null;
  ranksHealthy: number;
  ranksTotal: number;
};

/** The operator's live view of a job, as the list and the header show it. */
export function jobSummaryParts(live: LiveJob): JobSummaryParts {
  return {
    status: live.status,
    phase: live.phase,
    reason: live.reason ?? null,
    backOffUntil: live.backOffUntil ?? null,
    // Counted by the operator in the list's summary view; from the ranks for a source that sends them.
    ranksHealthy: live.ranksHealthy ?? countHealthyRanks(live),
    ranksTotal: live.ranksTotal,
  };
}

/**
 * Restarts per type over restart-timeline rows: a row standing for several identical failures in a row
 * (`count`) counts each of them; FAIL decisions restart nothing.
 */
export function restartTotals(rows: ReadonlyArray<{ action: string; count?: number | null }>): RestartTotals {
  const totals: RestartTotals = { plr: 0, podReplacement: 0, jlr: 0 };
  for (const row of rows) {
    const count = row.count ?? 1;
    if (row.action === "PLR") totals.plr += count;
    else if (row.action === "POD_REPLACEMENT") totals.podReplacement += count;
    else if (row.action === "JLR") totals.jlr += count;
  }
  return totals;
}

/** The status as shown: a job waiting for admission reads Pending, whatever the operator's text says. */
export function statusLabel(job: { phase: string; status: string }): {
  label: string;
  detail: string | null;
} {
  if (job.phase === "Pending" && job.status !== "Pending") return { label: "Pending", detail: job.status };
  return { label: job.status, detail: null };
}

/** "next try in 12 s" (whole seconds, rounded up; "next try now" once due). */
export function nextTryText(backOffUntil: number, now: number): string {
  const seconds = Math.ceil((backOffUntil - now) / 1000);
  if (seconds <= 0) return "next try now";
  if (seconds < 120) return `next try in ${seconds} s`;
  return `next try in ${Math.round(seconds / 60)} min`;
}

/**
 * A reason on one line for a table cell: line breaks and runs of white space become one space, a reason
 * said twice at its start ("CrashLoop: CrashLoop: …", from an older operator) once, cut at `max`
 * characters with "…". The full text stays on the job's page.
 */
export function oneLine(text: string, max = 120): string {
  let flat = text.replace(/\s+/g, " ").trim();
  const doubled = /^([A-Za-z]+): \1: /.exec(flat);
  if (doubled) flat = flat.slice(doubled[1]?.length ? doubled[1].length + 2 : 0);
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** A job whose ranks no longer run: its ranks read "2 finished", not "0/2 healthy". */
export const isFinishedPhase = (phase: string): boolean => phase === "Succeeded" || phase === "Failed";

/** The ranks as the list and the header show them: "3/4" healthy of total, or "4 finished". */
export function ranksText(job: { phase: string; ranksHealthy: number; ranksTotal: number }): string {
  return isFinishedPhase(job.phase) ? `${job.ranksTotal} finished` : `${job.ranksHealthy}/${job.ranksTotal}`;
}
