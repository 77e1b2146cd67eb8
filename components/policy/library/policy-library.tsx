"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { canEditPolicies } from "@/server/domain/access/policies";
import { formatWhen } from "./format";
import { NewPolicyForm } from "./new-policy-form";

type Row = {
  id: string;
  name: string;
  description: string;
  team: { id: string; name: string };
  latest: { version: number; author: string; createdAt: Date; message: string };
  canEdit: boolean;
};

const COLUMNS: ReadonlyArray<Column<Row>> = [
  { id: "name", header: "Policy", cell: (row) => <Link href={`/policies/${row.id}`}>{row.name}</Link> },
  { id: "team", header: "Team", cell: (row) => row.team.name },
  { id: "version", header: "Version", cell: (row) => `v${row.latest.version}`, numeric: true },
  {
    id: "changed",
    header: "Last saved",
    cell: (row) => `${formatWhen(row.latest.createdAt)} by ${row.latest.author}`,
  },
  { id: "message", header: "Message", cell: (row) => row.latest.message || row.description },
  { id: "access", header: "Access", cell: (row) => (row.canEdit ? "edit" : "read") },
];

/** /policies: the policies of the user's teams, and a new one from a template for the teams they may edit. */
export function PolicyLibrary() {
  const trpc = useTRPC();
  const policies = useQuery(trpc.policies.list.queryOptions({}));
  const me = useQuery(trpc.auth.me.queryOptions());
  const editable = (me.data?.memberships ?? [])
    .filter((membership) => canEditPolicies(me.data?.memberships ?? [], membership.teamId))
    .map((membership) => ({ id: membership.teamId, name: membership.teamName }));
  return (
    <div className="stack">
      <section className="card" aria-labelledby="policies-heading">
        <h2 id="policies-heading">Your teams' policies</h2>
        {policies.isPending ? (
          <LoadingState label="the policies" />
        ) : policies.isError ? (
          <ErrorState
            title="Could not load the policies"
            error={policies.error}
            onRetry={() => policies.refetch()}
          />
        ) : policies.data.length === 0 ? (
          <EmptyState>No policies yet. Start one from a template below.</EmptyState>
        ) : (
          <DataTable label="Policies" columns={COLUMNS} rows={policies.data} rowKey={(row) => row.id} />
        )}
      </section>
      {editable.length > 0 ? (
        <section className="card" aria-labelledby="new-policy-heading">
          <h2 id="new-policy-heading">New policy</h2>
          <NewPolicyForm teams={[...new Map(editable.map((team) => [team.id, team])).values()]} />
        </section>
      ) : me.data ? (
        <p className="muted">Engineers and admins of a team can start its policies; you can read yours.</p>
      ) : null}
    </div>
  );
}
