import Link from "next/link";
import { formatDuration } from "@/components/jobs/format";
import type { Column } from "@/components/ui/data-table";
import { formatQuantity } from "@/lib/format";
import type { QueueView } from "@/server/services/governance/governance.schema";

export type PendingRow = QueueView["pending"][number];
export type AdmittedRow = QueueView["admitted"][number];
export type PreemptedRow = QueueView["preempted"][number];

const jobLink = (row: { namespace: string; name: string }) => (
  <Link href={`/jobs/${row.namespace}/${row.name}`}>{row.name}</Link>
);

const priority = (row: { priorityClass: string | null; priority: number }) =>
  row.priorityClass ? `${row.priorityClass} (${row.priority})` : `none (${row.priority})`;

const gpus = (row: { request: Record<string, number> }) =>
  formatQuantity("nvidia.com/gpu", row.request["nvidia.com/gpu"] ?? 0);

type WhyToggle = { open: string | null; onToggle: (key: string) => void };

/** A button that shows (below the tables) why the row's job waits; one open at a time. */
function whyColumn<Row extends { key: string; name: string }>(why: WhyToggle): Column<Row> {
  return {
    id: "why",
    header: "Why pending",
    cell: (row) => (
      <button
        type="button"
        className="button-link"
        aria-expanded={why.open === row.key}
        aria-controls={why.open === row.key ? "queue-why-pending" : undefined}
        onClick={() => why.onToggle(row.key)}
      >
        {why.open === row.key ? "Hide" : "Why"}
        <span className="sr-only"> {row.name} is pending</span>
      </button>
    ),
  };
}

export function pendingColumns(why: WhyToggle): ReadonlyArray<Column<PendingRow>> {
  return [
    { id: "position", header: "Position", numeric: true, cell: (row) => row.position },
    { id: "job", header: "Job", cell: jobLink },
    { id: "priority", header: "Priority", cell: priority },
    { id: "gpus", header: "GPUs", numeric: true, cell: gpus },
    { id: "age", header: "Waiting", numeric: true, cell: (row) => formatDuration(row.ageMs) },
    { id: "reason", header: "Reason", cell: (row) => <span className="badge badge-warn">{row.reason}</span> },
    whyColumn<PendingRow>(why),
  ];
}

export const admittedColumns: ReadonlyArray<Column<AdmittedRow>> = [
  { id: "job", header: "Job", cell: jobLink },
  { id: "priority", header: "Priority", cell: priority },
  { id: "gpus", header: "GPUs", numeric: true, cell: gpus },
  { id: "flavor", header: "Instance type", cell: (row) => <code>{row.flavor ?? "—"}</code> },
  {
    id: "since",
    header: "Admitted for",
    numeric: true,
    cell: (row) => formatDuration(Date.now() - row.admittedAt),
  },
];

/** Preempted jobs wait again (requeued): by whom, why, when, and why they still wait. */
export function preemptedColumns(why: WhyToggle): ReadonlyArray<Column<PreemptedRow>> {
  return [
    { id: "job", header: "Job", cell: jobLink },
    { id: "priority", header: "Priority", cell: priority },
    {
      id: "by",
      header: "Preempted by",
      cell: (row) => (row.by ? <Link href={`/jobs/${row.by}`}>{row.by}</Link> : "—"),
    },
    { id: "reason", header: "Why", cell: (row) => <span className="badge badge-bad">{row.reason}</span> },
    { id: "message", header: "Detail", cell: (row) => <span className="muted">{row.message}</span> },
    { id: "at", header: "When", numeric: true, cell: (row) => `${formatDuration(Date.now() - row.at)} ago` },
    whyColumn<PreemptedRow>(why),
  ];
}
