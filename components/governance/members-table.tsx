"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { MemberView, Role } from "@/server/services/governance/governance.schema";
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

/** "Remove", then "Confirm removal" or "Cancel": a removal takes the member's access to the team away. */
function RemoveCell(props: {
  member: MemberView;
  confirming: boolean;
  busy: boolean;
  onAsk: () => void;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { member } = props;
  if (!member.canRemove) return null;
  if (!props.confirming)
    return (
      <button
        type="button"
        className="button button-secondary"
        aria-label={`Remove ${member.name}`}
        disabled={props.busy}
        onClick={props.onAsk}
      >
        Remove
      </button>
    );
  return (
    <span className={styles.toolbar}>
      <button
        type="button"
        className="button"
        aria-label={`Confirm removal of ${member.name}`}
        disabled={props.busy}
        onClick={props.onConfirm}
      >
        Confirm removal
      </button>
      <button type="button" className="button button-secondary" onClick={props.onCancel}>
        Cancel
      </button>
    </span>
  );
}

/**
 * A team's members and their roles; its team admins (and cluster admins) change roles and remove members
 * here (the server keeps a team's last team admin and the last cluster admin).
 */
export function MembersTable({ team }: { team: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.governance.members.list.queryOptions({ team }));
  const [refusal, setRefusal] = useState<{ what: string; refusal: ServerRefusal } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const settled = () =>
    queryClient.invalidateQueries({ queryKey: trpc.governance.members.list.queryKey({ team }) });
  const setRole = useMutation(
    trpc.governance.members.setRole.mutationOptions({
      onSuccess: () => setRefusal(null),
      onError: (error) => setRefusal({ what: "Role not changed", refusal: serverRefusal(error) }),
      onSettled: settled,
    }),
  );
  const remove = useMutation(
    trpc.governance.members.remove.mutationOptions({
      onSuccess: () => setRefusal(null),
      onError: (error) => setRefusal({ what: "Member not removed", refusal: serverRefusal(error) }),
      onSettled: () => {
        setConfirming(null);
        return settled();
      },
    }),
  );
  if (members.isPending) return <LoadingState label="members" />;
  if (members.isError)
    return (
      <ErrorState title="Could not load members" error={members.error} onRetry={() => members.refetch()} />
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
    {
      id: "remove",
      header: "Remove",
      cell: (member) => (
        <RemoveCell
          member={member}
          confirming={confirming === member.userId}
          busy={remove.isPending}
          onAsk={() => setConfirming(member.userId)}
          onCancel={() => setConfirming(null)}
          onConfirm={() => remove.mutate({ team, userId: member.userId, previousRole: member.role })}
        />
      ),
    },
  ];
  return (
    <>
      {refusal ? (
        <p role="alert" className="form-error">
          {refusal.what}: {refusal.refusal.message}
        </p>
      ) : null}
      <DataTable
        label="Members"
        columns={columns}
        rows={members.data.members}
        rowKey={(member) => member.userId}
      />
      {members.data.canEdit ? null : (
        <p className="muted">Read only: the team's admins change roles and remove members.</p>
      )}
      {members.data.canEdit && !members.data.canAdd ? (
        <p className="muted">Only a cluster admin adds users to a team.</p>
      ) : null}
    </>
  );
}
