import { type Column, DataTable } from "@/components/ui/data-table";
import type { PriorityClassView, SchedulerView } from "@/server/services/governance/governance.schema";
import styles from "../governance.module.css";

const onOff = (value: boolean) => (value ? "Enabled" : "Disabled");

const columns: ReadonlyArray<Column<PriorityClassView>> = [
  { id: "name", header: "Name", cell: (row) => <code>{row.name}</code> },
  { id: "weight", header: "Weight", numeric: true, cell: (row) => row.weight },
  { id: "jobs", header: "Jobs using it", numeric: true, cell: (row) => row.jobs },
  { id: "description", header: "Description", cell: (row) => row.description || "—" },
];

/** The scheduler config read-only, for everyone but cluster admins. */
export function SchedulerSummary({ view }: { view: SchedulerView }) {
  return (
    <>
      <dl className={styles.summary}>
        <dt>Task ranking</dt>
        <dd>{view.taskRanking ? "By priority class" : "First come, first served"}</dd>
        <dt>Fair share</dt>
        <dd>{onOff(view.fairShare)}</dd>
        <dt>Idle-resource sharing</dt>
        <dd>{onOff(view.idleResourceSharing)}</dd>
      </dl>
      <DataTable
        label="Priority classes"
        columns={columns}
        rows={view.priorityClasses}
        rowKey={(row) => row.name}
      />
      <p className="muted">Read only: cluster admins change the scheduler config.</p>
    </>
  );
}
