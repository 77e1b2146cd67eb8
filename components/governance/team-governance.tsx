"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { canReadTeamGovernance } from "@/server/domain/access/governance";
import { CapacityHistory } from "./capacity-history";
import { MembersTable } from "./members-table";
import { QueueView } from "./queue/queue-view";
import { QuotaEditor } from "./quota/quota-editor";

/**
 * One team's governance page: its quota, queue, capacity over time and members. Only for the team's members
 * and cluster admins (the rule the overview's links and the router's queue and capacity ask too).
 */
export function TeamGovernance({ team }: { team: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const allowed = me.data ? canReadTeamGovernance(me.data.memberships, team) : null;
  const quota = useQuery({ ...trpc.governance.quota.get.queryOptions({ team }), enabled: allowed === true });
  if (allowed === null) return <LoadingState label="the team" />;
  if (!allowed)
    return (
      <div className="stack">
        <h1>{team}</h1>
        <EmptyState>Only members of {team} and cluster admins see this team's page.</EmptyState>
      </div>
    );
  const displayName = quota.data?.displayName ?? team;
  const resources = [
    ...new Set(["nvidia.com/gpu", ...(quota.data?.resources.map((row) => row.resource) ?? [])]),
  ];
  return (
    <div className="stack">
      <h1>{displayName}</h1>
      <p>
        <Link href={`/governance/teams/${team}/notifications`}>Notifications</Link>
      </p>
      <section className="card" aria-labelledby="quota-heading">
        <h2 id="quota-heading">Compute quota</h2>
        <QuotaEditor team={team} />
      </section>
      <section className="card" aria-labelledby="queue-heading">
        <h2 id="queue-heading">Queue</h2>
        <QueueView team={team} />
      </section>
      <section className="card" aria-labelledby="team-capacity-heading">
        <h2 id="team-capacity-heading">Capacity over time</h2>
        <CapacityHistory team={team} displayName={displayName} resources={resources} />
      </section>
      <section className="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <MembersTable team={team} />
      </section>
    </div>
  );
}
