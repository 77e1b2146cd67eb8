"use client";

import { useQuery } from "@tanstack/react-query";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { formatQuantity, resourceLabel } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import type { Overview, OverviewTeam } from "@/server/services/governance/governance.schema";
import { CapacityHistory } from "../capacity-history";
import { overviewColumns } from "./overview-columns";

function ClusterCapacity({ capacity }: { capacity: Overview["capacity"] }) {
  const parts = Object.entries(capacity).flatMap(([flavor, resources]) =>
    Object.entries(resources).map(
      ([resource, amount]) => `${formatQuantity(resource, amount)} ${resourceLabel(resource)} on ${flavor}`,
    ),
  );
  return (
    <p className="muted">Cluster capacity for team queues: {parts.length > 0 ? parts.join(" · ") : "none"}</p>
  );
}

/** The team's resources, GPUs first. */
function resourcesOf(team: OverviewTeam): string[] {
  const all = new Set(["nvidia.com/gpu", ...team.capacity.map((row) => row.resource)]);
  return [...all];
}

/** Teams' quotas and capacity now (guaranteed, used, borrowed, lent), and each team's capacity over time. */
export function GovernanceOverview() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.governance.overview.queryOptions());
  if (overview.isPending) return <LoadingState label="governance" />;
  if (overview.isError)
    return (
      <ErrorState
        title="Could not load governance"
        error={overview.error}
        onRetry={() => overview.refetch()}
      />
    );
  const { teams, capacity, clusterError } = overview.data;
  if (teams.length === 0) return <EmptyState>No teams yet.</EmptyState>;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="capacity-now-heading">
        <h2 id="capacity-now-heading">Capacity now</h2>
        {clusterError ? (
          <p role="alert" className="form-error">
            The cluster could not be read ({clusterError}); usage shows as 0.
          </p>
        ) : null}
        <ClusterCapacity capacity={capacity} />
        <DataTable
          label="Team capacity"
          columns={overviewColumns}
          rows={teams}
          rowKey={(team) => team.team}
        />
      </section>
      <section className="card" aria-labelledby="capacity-history-heading">
        <h2 id="capacity-history-heading">Capacity over time</h2>
        <div className="grid-2">
          {teams
            .filter((team) => team.canReadQueue)
            .map((team) => (
              <CapacityHistory
                key={team.team}
                team={team.team}
                displayName={team.displayName}
                resources={resourcesOf(team)}
              />
            ))}
        </div>
      </section>
    </div>
  );
}
