import type { Db } from "@/server/db/client";

export type TeamQuota = {
  resource: string;
  guaranteed: number;
  borrowStrategy: string;
  borrowLimitPercent: number;
  preemptPolicy: string;
  fairShareWeight: number;
};
export type TeamSummary = {
  id: string;
  name: string;
  displayName: string;
  namespace: string;
  memberCount: number;
  quotas: TeamQuota[];
};

export async function listTeams(db: Db): Promise<TeamSummary[]> {
  const teams = await db.team.findMany({
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      displayName: true,
      namespace: true,
      _count: { select: { memberships: true } },
      quotas: {
        orderBy: { resource: "asc" },
        select: {
          resource: true,
          guaranteed: true,
          borrowStrategy: true,
          borrowLimitPercent: true,
          preemptPolicy: true,
          fairShareWeight: true,
        },
      },
    },
  });
  return teams.map(({ _count, quotas, ...team }) => ({
    ...team,
    memberCount: _count.memberships,
    quotas: quotas.map((quota) => ({ ...quota, guaranteed: quota.guaranteed.toNumber() })),
  }));
}
