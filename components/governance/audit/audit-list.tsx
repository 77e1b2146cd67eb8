"use client";

import { useQuery } from "@tanstack/react-query";
import { auditColumns } from "@/components/governance/audit/audit-columns";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { canReadAudit } from "@/server/domain/access/governance";
import styles from "../governance.module.css";
import { describeChanges } from "./audit-details";

const columns = auditColumns({
  id: "details",
  header: "Change",
  describe: (entry) => (
    <ul className={styles.changes}>
      {describeChanges(entry.details).map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  ),
});

/**
 * Governance changes, newest first (cluster admins see all; team admins their team's), each with what it
 * changed from and to. Read only; new rows arrive by themselves (GovernanceLive, governance-live.tsx).
 */
export function AuditList() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const allowed = me.data ? canReadAudit(me.data.memberships) : null;
  const audit = useQuery({
    ...trpc.governance.audit.queryOptions({ limit: 100 }),
    enabled: allowed === true,
  });
  if (allowed === false)
    return <EmptyState>Only team admins and cluster admins see the audit log.</EmptyState>;
  if (audit.isPending) return <LoadingState label="the audit log" />;
  if (audit.isError)
    return (
      <ErrorState title="Could not load the audit log" error={audit.error} onRetry={() => audit.refetch()} />
    );
  if (audit.data.length === 0) return <EmptyState>No governance change yet.</EmptyState>;
  return (
    <DataTable
      label="Governance audit log"
      columns={columns}
      rows={audit.data}
      rowKey={(entry) => entry.id}
    />
  );
}
