import type { Db } from "@/server/db/client";

export type TeamQuota = {
  resource: string;
  instanceType: string;
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
      quota: {
        select: {
          borrowStrategy: true,
          borrowLimitPercent: true,
          preemptPolicy: true,
          fairShareWeight: true,
          resources: { orderBy: [{ resource: "asc" }, { instanceType: "asc" }] },
        },
      },
    },
  });
  return teams.map(({ _count, quota, ...team }) => ({
    ...team,
    memberCount: _count.memberships,
    quotas: (quota?.resources ?? []).map((row) => ({
      resource: row.resource,
      instanceType: row.instanceType,
      guaranteed: row.guaranteed.toNumber(),
      borrowStrategy: quota?.borrowStrategy ?? "LendAndBorrow",
      borrowLimitPercent: quota?.borrowLimitPercent ?? 50,
      preemptPolicy: quota?.preemptPolicy ?? "LowerPriority",
      fairShareWeight: quota?.fairShareWeight ?? 0,
    })),
  }));
}
