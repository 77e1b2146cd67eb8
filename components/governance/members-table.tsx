"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { MemberView, Role } from "@/server/api/routers/governance/governance.schema";
import { type ServerRefusal, serverRefusal } from "./form-errors";
import styles from "./governance.module.css";

const ROLE_LABEL: Record<Role, string> = {
  viewer: "Viewer",
  engineer: "Engineer",
  team_admin: "Team admin",
  cluster_admin: "Cluster admin",
};

function RoleCell(props: {
  member: MemberView;
  assignable: readonly Role[];
  busy: boolean;
  onChange: (role: Role) => void;
}) {
  const { member, assignable } = props;
  if (!member.canChange) return ROLE_LABEL[member.role];
  const options = assignable.includes(member.role) ? assignable : [member.role, ...assignable];
  return (
    <select
      className={styles.roleSelect}
      aria-label={`Role of ${member.name}`}
      value={member.role}
      disabled={props.busy}
      onChange={(event) => {
        const role = options.find((candidate) => candidate === event.target.value);
        if (role) props.onChange(role);
      }}
    >
      {options.map((role) => (
        <option key={role} value={role}>
          {ROLE_LABEL[role]}
        </option>
      ))}
    </select>
  );
}

/** A team's members and their roles; its team admins (and cluster admins) change roles here. */
export function MembersTable({ team }: { team: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.governance.members.list.queryOptions({ team }));
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const setRole = useMutation(
    trpc.governance.members.setRole.mutationOptions({
      onSuccess: () => setRefusal(null),
      onError: (error) => setRefusal(serverRefusal(error)),
      onSettled: () =>
        queryClient.invalidateQueries({ queryKey: trpc.governance.members.list.queryKey({ team }) }),
    }),
  );
  if (members.isPending) return <LoadingState label="members" />;
  if (members.isError)
    return (
      <ErrorState
        title="Could not load members"
        message={members.error.message}
        onRetry={() => members.refetch()}
      />
    );
  if (members.data.members.length === 0) return <EmptyState>No members yet.</EmptyState>;
  const columns: ReadonlyArray<Column<MemberView>> = [
    { id: "name", header: "Name", cell: (member) => member.name },
    { id: "email", header: "Email", cell: (member) => member.email },
    {
      id: "role",
      header: "Role",
      cell: (member) => (
        <RoleCell
          member={member}
          assignable={members.data.assignable}
          busy={setRole.isPending}
          onChange={(role) =>
            setRole.mutate({ team, userId: member.userId, role, previousRole: member.role })
          }
        />
      ),
    },
  ];
  return (
    <>
      {refusal ? (
        <p role="alert" className="form-error">
          Role not changed: {refusal.message}
        </p>
      ) : null}
      <DataTable
        label="Members"
        columns={columns}
        rows={members.data.members}
        rowKey={(member) => member.userId}
      />
      {members.data.canEdit ? null : <p className="muted">Read only: the team's admins change roles.</p>}
    </>
  );
}
