"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { formatDuration } from "@/components/jobs/format";
import { useNow } from "@/components/jobs/use-now";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { LiveNote } from "@/lib/live/live-note";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import type { JobRow } from "@/server/domain/jobs/pages";
import { ranksText } from "@/server/domain/jobs/view-model-summary";
import { jobRowList } from "@/server/domain/live/lists";
import { JobReason, JobStatus } from "./job-status";
import { filterJobs, type JobFilters } from "./jobs-filter";

/** The columns at `now` (the age ticks with the page's clock: rows only re-render on a pushed change). */
const columnsAt = (now: number): ReadonlyArray<Column<JobRow>> => [
  {
    id: "name",
    header: "Job",
    // A name breaks nowhere (not at its hyphens): the table scrolls sideways instead.
    cell: (job) => (
      <Link href={`/jobs/${job.namespace}/${job.name}`} style={{ whiteSpace: "nowrap" }}>
        {job.name}
      </Link>
    ),
  },
  {
    id: "status",
    header: "Status",
    // The same status (and back-off's next try) as the job page's header: JobStatus.
    cell: (job) => <JobStatus job={job} now={now} />,
  },
  {
    id: "reason",
    header: "Reason",
    cell: (job) => <JobReason reason={job.reason} max={80} />,
  },
  { id: "team", header: "Team", cell: (job) => job.team ?? "—" },
  { id: "namespace", header: "Namespace", cell: (job) => <code>{job.namespace}</code> },
  { id: "priority", header: "Priority", cell: (job) => job.priorityClass ?? "—" },
  { id: "gpus", header: "GPUs", numeric: true, cell: (job) => job.gpus },
  {
    id: "ranks",
    header: "Ranks healthy",
    numeric: true,
    // As the job page's header shows them (ranksText): a finished job's ranks read "N finished".
    cell: (job) => ranksText(job),
  },
  {
    id: "restarts",
    header: "Restarts (PLR/pod/JLR)",
    numeric: true,
    cell: (job) => `${job.restarts.plr}/${job.restarts.podReplacement}/${job.restarts.jlr}`,
  },
  { id: "age", header: "Age", numeric: true, cell: (job) => formatDuration(now - job.createdAt) },
];

const unique = (values: Array<string | null>) =>
  [...new Set(values.filter((v): v is string => v !== null))].sort();

/** Every job the user may read, kept live by push (jobs.listWatch): no polling from the browser. */
export function JobsList() {
  const trpc = useTRPC();
  const jobs = useLive(trpc.jobs.listWatch.subscriptionOptions(), jobRowList.apply);
  const [filters, setFilters] = useState<JobFilters>({ team: "", status: "", namespace: "" });
  const rows = useMemo(() => filterJobs(jobs.data ?? [], filters), [jobs.data, filters]);
  const now = useNow();
  const columns = useMemo(() => columnsAt(now), [now]);

  if (jobs.data === null) {
    if (jobs.status === "unavailable")
      return <ErrorState title="Could not load jobs" message={jobs.error ?? "the stream ended"} />;
    return <LoadingState label="jobs" />;
  }
  const options = {
    team: unique(jobs.data.map((job) => job.team)),
    status: unique(jobs.data.map((job) => job.status)),
    namespace: unique(jobs.data.map((job) => job.namespace)),
  };
  return (
    <section className="card" aria-label="Jobs">
      <LiveNote status={jobs.status} error={jobs.error} />
      <div className="filters">
        {(["team", "status", "namespace"] as const).map((key) => (
          <label key={key}>
            {key[0]?.toUpperCase()}
            {key.slice(1)}
            <select
              value={filters[key]}
              onChange={(event) => setFilters({ ...filters, [key]: event.target.value })}
            >
              <option value="">All</option>
              {options[key].map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      {rows.length === 0 ? (
        <EmptyState>{jobs.data.length === 0 ? "No jobs yet." : "No job matches these filters."}</EmptyState>
      ) : (
        <DataTable
          label="Jobs"
          columns={columns}
          rows={rows}
          rowKey={(job) => `${job.namespace}/${job.name}`}
        />
      )}
    </section>
  );
}
