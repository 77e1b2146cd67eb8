"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
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
    { id: "outcome", header: "Outcome", cell: (run) => run.phase ?? "—" },
    { id: "restarts", header: "Restarts", numeric: true, cell: (run) => run.restarts },
  ];
}

/** Earlier runs of this job's name (deleted and resubmitted), each linking to its own timeline. */
export function PastRuns({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const runs = useQuery(trpc.jobs.runs.queryOptions({ namespace, name }));
  if (runs.isPending) return <LoadingState label="past runs" />;
  if (runs.isError)
    return (
      <ErrorState
        title="Could not load past runs"
        message={runs.error.message}
        onRetry={() => runs.refetch()}
      />
    );
  if (runs.data.length === 0)
    return <EmptyState>No past runs: this is the first job under this name.</EmptyState>;
  return (
    <DataTable
      label="Past runs"
      columns={columns(namespace, name)}
      rows={runs.data}
      rowKey={(run) => run.uid}
    />
  );
}
