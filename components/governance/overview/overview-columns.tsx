import Link from "next/link";
import type { Column } from "@/components/ui/data-table";
import { formatQuantity } from "@/lib/format";
import type { CapacityRow, OverviewTeam } from "@/server/services/governance/governance.schema";

const GPU = "nvidia.com/gpu";

type Amount = Exclude<keyof CapacityRow, "flavor" | "resource">;

/** A team's amount of one resource summed over instance types. */
export function totalOf(team: OverviewTeam, key: Amount, resource = GPU): number {
  return team.capacity.filter((row) => row.resource === resource).reduce((sum, row) => sum + row[key], 0);
}

const gpus = (key: Amount) => (team: OverviewTeam) => formatQuantity(GPU, totalOf(team, key));

export const overviewColumns: ReadonlyArray<Column<OverviewTeam>> = [
  {
    id: "team",
    header: "Team",
    // A link only where the team's page opens: `canReadQueue` is the page's own rule (canReadGovernance).
    cell: (team) =>
      team.canReadQueue ? (
        <Link href={`/governance/teams/${team.team}`}>{team.displayName}</Link>
      ) : (
        team.displayName
      ),
  },
  {
    id: "activation",
    header: "Quota",
    cell: (team) => (
      <span className={`badge ${team.quota.activation === "Enabled" ? "badge-ok" : "badge-warn"}`}>
        {team.quota.activation}
      </span>
    ),
  },
  { id: "strategy", header: "Sharing", cell: (team) => team.quota.strategy },
  { id: "guaranteed", header: "Guaranteed GPUs", numeric: true, cell: gpus("guaranteed") },
  { id: "used", header: "Used", numeric: true, cell: gpus("used") },
  { id: "borrowed", header: "Borrowed", numeric: true, cell: gpus("borrowed") },
  { id: "lent", header: "Lent", numeric: true, cell: gpus("lent") },
  { id: "available", header: "Available", numeric: true, cell: gpus("available") },
  { id: "weight", header: "Fair-share weight", numeric: true, cell: (team) => team.quota.fairShareWeight },
  {
    id: "jobs",
    header: "Pending / admitted / preempted",
    numeric: true,
    cell: (team) => `${team.jobs.pending} / ${team.jobs.admitted} / ${team.jobs.preempted}`,
  },
];
