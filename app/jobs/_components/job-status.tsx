import { nextTryText, oneLine, statusLabel } from "@/server/domain/jobs/view-model-summary";
import { statusTone } from "./jobs-filter";

type StatusFacts = { phase: string; status: string; backOffUntil?: number | null };

/**
 * A job's status as the jobs list and the job page's header both show it (one component, one source:
 * server/domain/jobs/view-model-summary.ts): the badge, a governed job's operator status beside
 * "Pending", and while backing off the time to the next try.
 */
export function JobStatus({ job, now, testId }: { job: StatusFacts; now: number; testId?: string }) {
  const { label, detail } = statusLabel(job);
  return (
    <span style={{ whiteSpace: "nowrap" }}>
      <span className={`badge badge-${statusTone(label)}`} data-testid={testId}>
        {label}
      </span>
      {detail ? <span className="muted"> {detail}</span> : null}
      {job.backOffUntil != null ? (
        <span className="muted" data-testid={testId ? `${testId}-next-try` : undefined}>
          {" "}
          {nextTryText(job.backOffUntil, now)}
        </span>
      ) : null}
    </span>
  );
}

/**
 * Why the job is not running, on one line (the full text in its title, and on the job's page); nothing
 * while it runs.
 */
export function JobReason({
  reason,
  max,
  testId,
}: {
  reason?: string | null;
  max?: number;
  testId?: string;
}) {
  if (!reason) return null;
  return (
    <span className="muted" title={reason} data-testid={testId}>
      {oneLine(reason, max)}
    </span>
  );
}
