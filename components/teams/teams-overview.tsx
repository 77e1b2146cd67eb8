"use client";

import { useQuery } from "@tanstack/react-query";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { formatQuantity } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import type { TeamSummary } from "@/server/services/teams/queries";

function quota(team: TeamSummary, resource: string): string {
  const found = team.quotas.find((candidate) => candidate.resource === resource);
  return found ? formatQuantity(resource, found.guaranteed) : "—";
}

const columns: ReadonlyArray<Column<TeamSummary>> = [
  { id: "team", header: "Team", cell: (team) => team.displayName },
  { id: "namespace", header: "Namespace", cell: (team) => <code>{team.namespace}</code> },
  { id: "members", header: "Members", numeric: true, cell: (team) => team.memberCount },
  { id: "gpus", header: "Guaranteed GPUs", numeric: true, cell: (team) => quota(team, "nvidia.com/gpu") },
  { id: "cpu", header: "Guaranteed CPU", numeric: true, cell: (team) => quota(team, "cpu") },
  {
    id: "sharing",
    header: "Sharing",
    cell: (team) => team.quotas.find((q) => q.resource === "nvidia.com/gpu")?.borrowStrategy ?? "—",
  },
  {
    id: "weight",
    header: "Fair-share weight",
    numeric: true,
    cell: (team) => team.quotas.find((q) => q.resource === "nvidia.com/gpu")?.fairShareWeight ?? "—",
  },
];

export function TeamsOverview() {
  const trpc = useTRPC();
  const teams = useQuery(trpc.teams.list.queryOptions());

  if (teams.isPending) return <LoadingState label="teams" />;
  if (teams.isError) {
    return <ErrorState title="Could not load teams" error={teams.error} onRetry={() => teams.refetch()} />;
  }
  if (teams.data.length === 0) {
    return <EmptyState>No teams yet. A cluster admin creates teams and their quotas.</EmptyState>;
  }
  return (
    <DataTable label="Teams and quotas" columns={columns} rows={teams.data} rowKey={(team) => team.id} />
  );
}
