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
