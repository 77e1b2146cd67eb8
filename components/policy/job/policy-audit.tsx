"use client";

import { useQuery } from "@tanstack/react-query";
import { auditColumns } from "@/components/governance/audit/audit-columns";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { policyAuditText } from "./policy-audit-text";

const columns = auditColumns({
  id: "what",
  header: "What",
  describe: (entry) => policyAuditText(entry.action, entry.details),
});

/**
 * Who did what with the team's policies, newest first: saves into the library and the applies, shadows
 * and promotions on its jobs (policies.audit); the page's writes refresh it.
 */
export function PolicyAudit(props: { teamId: string }) {
  const trpc = useTRPC();
  const audit = useQuery(trpc.policies.audit.queryOptions({ teamId: props.teamId, limit: 20 }));
  return (
    <section className="card" aria-labelledby="policy-audit-heading">
      <h2 id="policy-audit-heading">Policy audit log</h2>
      <p>
        <button type="button" className="button button-secondary" onClick={() => audit.refetch()}>
          Refresh
        </button>
      </p>
      {audit.isPending ? (
        <LoadingState label="the policy audit log" />
      ) : audit.isError ? (
        <ErrorState
          title="Could not load the audit log"
          error={audit.error}
          onRetry={() => audit.refetch()}
        />
      ) : audit.data.length === 0 ? (
        <EmptyState>No policy change yet.</EmptyState>
      ) : (
        <DataTable
          label="Policy audit log"
          columns={columns}
          rows={audit.data}
          rowKey={(entry) => entry.id}
        />
      )}
    </section>
  );
}
