import { nextTryText, oneLine } from "@/server/domain/jobs/view-model-summary";
import type { LiveJob } from "@/server/domain/operator-api/contract";

/**
 * What `rebound jobs` and `rebound job <name>` print. The list is a table: one job a line, its reason on
 * that line (oneLine: line breaks and repeats gone, cut short); `rebound job` prints the reason whole.
 * A job waiting out a crash-loop back-off reads "BackOff (next try in 12 s)", not the condition HyperPod's
 * STATUS would name (PodsRunning while nothing runs).
 */

type ListedJob = Pick<
  LiveJob,
  "namespace" | "name" | "status" | "ranksRunning" | "ranksTotal" | "restartCount" | "reason" | "backOffUntil"
>;

/** The STATUS column: the status, with the time to the next try while backing off. */
export function statusCell(job: Pick<ListedJob, "status" | "backOffUntil">, now: number): string {
  const until = job.backOffUntil ?? null;
  return until === null ? job.status : `${job.status} (${nextTryText(until, now)})`;
}

/** `rebound jobs`: a header and a line per job, tab-separated. */
export function jobsTable(jobs: readonly ListedJob[], now: number): string {
  const lines = [["NAMESPACE", "NAME", "STATUS", "RANKS", "RESTARTS", "REASON"].join("\t")];
  for (const job of jobs) {
    const ranks = `${job.ranksRunning}/${job.ranksTotal}`;
    const reason = job.reason ? oneLine(job.reason) : "";
    lines.push([job.namespace, job.name, statusCell(job, now), ranks, job.restartCount, reason].join("\t"));
  }
  return lines.join("\n");
}

/** `rebound job <name>`: the job's facts, one a line, and its reason in full (indented). */
export function jobDetailText(job: ListedJob & Pick<LiveJob, "phase">, now: number): string {
  const lines = [
    `Name:      ${job.namespace}/${job.name}`,
    `Status:    ${statusCell(job, now)}`,
    `Phase:     ${job.phase}`,
    `Ranks:     ${job.ranksRunning}/${job.ranksTotal} running`,
    `Restarts:  ${job.restartCount}`,
  ];
  if (job.reason) {
    lines.push("Reason:");
    for (const line of job.reason.split("\n")) lines.push(`  ${line}`);
  }
  return lines.join("\n");
}
