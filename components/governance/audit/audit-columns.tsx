import type { ReactNode } from "react";
import type { Column } from "@/components/ui/data-table";
import type { AuditEntry } from "@/server/services/governance/governance.schema";

/** An audit table's columns (when, who, action, target), then the change in words as `change` says it. */
export function auditColumns(change: {
  id: string;
  header: string;
  describe: (entry: AuditEntry) => ReactNode;
}): ReadonlyArray<Column<AuditEntry>> {
  return [
    {
      id: "at",
      header: "When",
      cell: (entry) => (
        <time dateTime={entry.at.toISOString()}>
          {entry.at.toLocaleString("en-US", { dateStyle: "medium", timeStyle: "medium" })}
        </time>
      ),
    },
    { id: "actor", header: "Who", cell: (entry) => entry.actor?.name ?? "—" },
    { id: "action", header: "Action", cell: (entry) => <code>{entry.action}</code> },
    { id: "target", header: "Target", cell: (entry) => entry.target },
    { id: change.id, header: change.header, cell: change.describe },
  ];
}
