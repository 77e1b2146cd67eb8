import { type Column, DataTable } from "@/components/ui/data-table";
import { formatQuantity } from "@/lib/format";
import type { QuotaView } from "@/server/services/governance/governance.schema";
import styles from "../governance.module.css";

type Row = QuotaView["resources"][number];

const columns: ReadonlyArray<Column<Row>> = [
  { id: "flavor", header: "Instance type", cell: (row) => <code>{row.instanceType}</code> },
  { id: "resource", header: "Resource", cell: (row) => <code>{row.resource}</code> },
  {
    id: "guaranteed",
    header: "Guaranteed",
    numeric: true,
    cell: (row) => formatQuantity(row.resource, row.guaranteed),
  },
  {
    id: "limit",
    header: "Absolute borrow limit",
    numeric: true,
    cell: (row) =>
      row.absoluteBorrowLimit === null ? "—" : formatQuantity(row.resource, row.absoluteBorrowLimit),
  },
];

/** The advanced Kueue settings in one line: only those that differ from the defaults. */
function advancedText(knobs: QuotaView["kueue"]): string {
  const parts: string[] = [];
  if (knobs.reclaimWithinCohort !== "Any") parts.push(`reclaim within cohort: ${knobs.reclaimWithinCohort}`);
  const borrow = knobs.borrowWithinCohort;
  if (borrow.policy !== "Never")
    parts.push(
      `preempt while borrowing: ${borrow.policy}${borrow.maxPriorityThreshold === null ? "" : ` (≤ ${borrow.maxPriorityThreshold})`}`,
    );
  if (knobs.lendingLimit !== null) parts.push(`lends at most ${knobs.lendingLimit} GPUs`);
  if (knobs.queueingStrategy !== "BestEffortFIFO") parts.push(knobs.queueingStrategy);
  if (knobs.withinClusterQueue !== null) parts.push(`within the team: ${knobs.withinClusterQueue}`);
  return parts.length === 0 ? "defaults" : parts.join("; ");
}

/** The quota read-only, for members who may see it but not change it. */
export function QuotaSummary({ view }: { view: QuotaView }) {
  return (
    <>
      <dl className={styles.summary}>
        <dt>Activation</dt>
        <dd>{view.activation}</dd>
        <dt>Sharing strategy</dt>
        <dd>{view.strategy}</dd>
        <dt>Borrow limit</dt>
        <dd>{view.borrowLimitPercent}%</dd>
        <dt>Preempt team tasks</dt>
        <dd>{view.preemptTeamTasks}</dd>
        <dt>Fair-share weight</dt>
        <dd>{view.fairShareWeight}</dd>
        <dt>Advanced (Kueue)</dt>
        <dd>{advancedText(view.kueue)}</dd>
      </dl>
      <DataTable
        label="Quota resources"
        columns={columns}
        rows={view.resources}
        rowKey={(row) => `${row.instanceType}/${row.resource}`}
      />
      <p className="muted">Read only: the team's admins and cluster admins change this quota.</p>
    </>
  );
}
