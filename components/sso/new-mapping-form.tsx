"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";

type TeamRole = "viewer" | "engineer" | "team_admin";
const CLUSTER = "cluster";

/** A new rule: a group, and a role on a team or cluster admin; applied at each member's next sign-in. */
export function NewMappingForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const teams = useQuery(trpc.teams.list.queryOptions());
  const id = useId();
  const [group, setGroup] = useState("");
  const [target, setTarget] = useState("");
  const [role, setRole] = useState<TeamRole>("engineer");
  const create = useMutation(
    trpc.sso.createMapping.mutationOptions({
      onSuccess: async () => {
        setGroup("");
        await queryClient.invalidateQueries({ queryKey: trpc.sso.listMappings.queryKey() });
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      target === CLUSTER ? { kind: "cluster_admin", group } : { kind: "team", group, teamId: target, role },
    );
  };
  return (
    <form className="form" onSubmit={submit}>
      <label htmlFor={`${id}-group`}>Group</label>
      <input
        id={`${id}-group`}
        required
        value={group}
        onChange={(e) => setGroup(e.target.value)}
        placeholder="ml-vision"
      />
      <label htmlFor={`${id}-target`}>Gives</label>
      <select id={`${id}-target`} required value={target} onChange={(e) => setTarget(e.target.value)}>
        <option value="" disabled>
          {teams.isPending ? "Loading teams…" : "Choose a team"}
        </option>
        {(teams.data ?? []).map((team) => (
          <option key={team.id} value={team.id}>
            a role on {team.name}
          </option>
        ))}
        <option value={CLUSTER}>cluster admin (every team)</option>
      </select>
      {target !== CLUSTER ? (
        <>
          <label htmlFor={`${id}-role`}>Role</label>
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
            <option value="viewer">Viewer</option>
            <option value="engineer">Engineer</option>
            <option value="team_admin">Team admin</option>
          </select>
        </>
      ) : null}
      {create.isError ? (
        <p role="alert" className="form-error">
          {create.error.message}
        </p>
      ) : null}
      {teams.isError ? (
        <p role="alert" className="form-error">
          Could not load the teams: {teams.error.message}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={create.isPending}>
        {create.isPending ? "Adding…" : "Add mapping"}
      </button>
    </form>
  );
}
