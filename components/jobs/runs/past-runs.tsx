"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { formatDuration } from "@/components/jobs/format";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { PastRunRow } from "@/server/services/jobs/past-runs";

const runHref = (namespace: string, name: string, uid: string) =>
  `/jobs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/runs/${encodeURIComponent(uid)}`;

function columns(namespace: string, name: string): ReadonlyArray<Column<PastRunRow>> {
  return [
    {
      id: "started",
      header: "Started",
      cell: (run) => (
        <Link href={runHref(namespace, name, run.uid)}>{new Date(run.createdAt).toLocaleString()}</Link>
      ),
    },
    { id: "ended", header: "Ended", cell: (run) => new Date(run.endedAt).toLocaleString() },
    { id: "ran", header: "Ran", cell: (run) => formatDuration(run.endedAt - run.createdAt) },
    { id: "outcome", header: "Outcome", cell: (run) => run.summary },
    { id: "restarts", header: "Restarts", numeric: true, cell: (run) => run.restarts },
  ];
}

/**
 * Runs of this job's name that ended (finished, or deleted and resubmitted), each linking to its own
 * timeline, with how it ended: "Succeeded", "Failed: …", "Deleted while Running after 3 restarts".
 */
export function PastRuns(props: {
  namespace: string;
  name: string;
  /** The job on the page has finished: its run just ended, so the list is read again to show it. */
  finished?: boolean;
}) {
  const { namespace, name } = props;
  const finished = props.finished ?? false;
  const trpc = useTRPC();
  const runs = useQuery(trpc.jobs.runs.queryOptions({ namespace, name }));
  const { refetch } = runs;
  const seen = useRef(finished);
  useEffect(() => {
    if (seen.current === finished) return;
    seen.current = finished;
    void refetch();
  }, [finished, refetch]);
  if (runs.isPending) return <LoadingState label="past runs" />;
  if (runs.isError)
    return <ErrorState title="Could not load past runs" error={runs.error} onRetry={() => runs.refetch()} />;
  if (runs.data.length === 0)
    return (
      <EmptyState>No past runs: this is the first job under this name, and it has not ended.</EmptyState>
    );
  return (
    <DataTable
      label="Past runs"
      columns={columns(namespace, name)}
      rows={runs.data}
      rowKey={(run) => run.uid}
    />
  );
}
