"use client";

import { useQuery } from "@tanstack/react-query";
import { auditColumns } from "@/components/governance/audit/audit-columns";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { describeDetails } from "./audit-details";

const columns = auditColumns({
  id: "details",
  header: "Change",
  describe: (entry) => describeDetails(entry.details),
});

/** Governance changes, newest first (cluster admins see all; team admins their team's). Read only. */
export function AuditList() {
  const trpc = useTRPC();
  const audit = useQuery(trpc.governance.audit.queryOptions({ limit: 100 }));
  if (audit.isPending) return <LoadingState label="the audit log" />;
  if (audit.isError)
    return (
      <ErrorState
        title="Could not load the audit log"
        message={audit.error.message}
        onRetry={() => audit.refetch()}
      />
    );
  if (audit.data.length === 0) return <EmptyState>No governance change yet.</EmptyState>;
  return (
    <>
      <p>
        <button type="button" className="button button-secondary" onClick={() => audit.refetch()}>
          Refresh
        </button>
      </p>
      <DataTable
        label="Governance audit log"
        columns={columns}
        rows={audit.data}
        rowKey={(entry) => entry.id}
      />
    </>
  );
}
