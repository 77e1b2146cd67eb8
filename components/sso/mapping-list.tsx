"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { GroupMappingView } from "@/server/services/auth/oidc/oidc.schema";

const ROLE_LABELS: Record<GroupMappingView["role"], string> = {
  viewer: "Viewer",
  engineer: "Engineer",
  team_admin: "Team admin",
  cluster_admin: "Cluster admin",
};

function RemoveButton(props: { mapping: GroupMappingView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.sso.deleteMapping.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.sso.listMappings.queryKey() }),
    }),
  );
  const target = props.mapping.team?.name ?? "cluster";
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        aria-label={`Remove ${props.mapping.group} → ${target}`}
        disabled={remove.isPending}
        onClick={() => remove.mutate({ id: props.mapping.id })}
      >
        Remove
      </button>
      {remove.isError ? (
        <span role="alert" className="form-error">
          Not removed: {remove.error.message}
        </span>
      ) : null}
    </>
  );
}

const columns: ReadonlyArray<Column<GroupMappingView>> = [
  { id: "group", header: "Group", cell: (row) => <code>{row.group}</code> },
  { id: "team", header: "Team", cell: (row) => row.team?.name ?? "every team" },
  { id: "role", header: "Role", cell: (row) => ROLE_LABELS[row.role] },
  { id: "actions", header: "", cell: (row) => <RemoveButton mapping={row} /> },
];

/** The mappings, as GroupMappingsAdmin's query gave them; a removal applies at each member's next sign-in. */
export function MappingList(props: { mappings: readonly GroupMappingView[] }) {
  if (props.mappings.length === 0)
    return <EmptyState>No mapping yet: users who sign in with single sign-on get no team.</EmptyState>;
  return (
    <DataTable label="Group mappings" columns={columns} rows={props.mappings} rowKey={(row) => row.id} />
  );
}
