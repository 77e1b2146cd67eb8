"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RestartTimeline } from "@/components/charts/restart-timeline";
import { formatDuration } from "@/components/jobs/format";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { RunEvents } from "./run-events";

/** One past run of a job name: when it ran, how it ended, its restart timeline and its events. */
export function PastRunView(props: { namespace: string; name: string; uid: string }) {
  const { namespace, name, uid } = props;
  const trpc = useTRPC();
  const run = useQuery(trpc.jobs.pastRun.queryOptions({ job: { namespace, name }, uid }));
  if (run.isPending) return <LoadingState label="past run" />;
  if (run.isError)
    return <ErrorState title="Could not load this run" error={run.error} onRetry={() => run.refetch()} />;
  const data = run.data;
  const jobHref = `/jobs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  return (
    <div className="stack">
      <div className="page-header">
        <div>
          <h1>{name}: past run</h1>
          <ul className="facts" aria-label="Run facts">
            <li>
              Started <strong>{new Date(data.createdAt).toLocaleString()}</strong>
            </li>
            <li>
              Ended <strong>{new Date(data.endedAt).toLocaleString()}</strong>
            </li>
            <li>
              Ran <strong>{formatDuration(data.endedAt - data.createdAt)}</strong>
            </li>
            <li>
              Outcome <strong data-testid="run-outcome">{data.summary}</strong>
            </li>
          </ul>
        </div>
        <Link href={jobHref}>Back to the job</Link>
      </div>
      <section className="card" aria-labelledby="run-timeline-heading">
        <h2 id="run-timeline-heading">Restart timeline</h2>
        <RestartTimeline entries={data.timeline} totals={data.totals} now={data.endedAt} />
      </section>
      <section className="card" aria-labelledby="run-events-heading">
        <h2 id="run-events-heading">Events</h2>
        <RunEvents events={data.events} />
      </section>
    </div>
  );
}
