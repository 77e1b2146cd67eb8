import type { Db } from "@/server/db/client";
import { kueueSettingsSchema } from "@/server/domain/governance/kueue-settings.schema";
import type {
  FlavorQuantities,
  GovernanceConfig,
  KueueSettings,
  TeamQuota,
} from "@/server/domain/governance/types";

/**
 * The governance configuration as stored in Postgres (quotas per team, priority classes, scheduler config),
 * in the domain's shapes. One read: the operator's local admission, the Kueue sync and the console's what-if
 * and "why pending" all start from it. A team without a quota row has no guarantee (it can only borrow).
 */
type QuotaRow = {
  activation: "Enabled" | "Disabled";
  borrowStrategy: TeamQuota["strategy"];
  borrowLimitPercent: number;
  preemptPolicy: TeamQuota["preemptTeamTasks"];
  fairShareWeight: number;
  kueueSettings: unknown;
  resources: Array<{
    instanceType: string;
    resource: string;
    guaranteed: { toNumber(): number };
    absoluteBorrowLimit: { toNumber(): number } | null;
  }>;
};

function byFlavor(rows: Array<{ instanceType: string; resource: string; amount: number }>): FlavorQuantities {
  const out: Record<string, Record<string, number>> = {};
  for (const row of rows) out[row.instanceType] = { ...out[row.instanceType], [row.resource]: row.amount };
  return out;
}

/**
 * The stored advanced Kueue settings; null or a value that no longer passes the schema (written by hand):
 * none, so the defaults apply rather than a guess.
 */
export function storedKueueSettings(value: unknown): KueueSettings | null {
  if (value === null || value === undefined) return null;
  const parsed = kueueSettingsSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function teamQuota(team: string, quota: QuotaRow | null): TeamQuota {
  const kueue = storedKueueSettings(quota?.kueueSettings);
  const rows = quota?.resources ?? [];
  return {
    team,
    active: (quota?.activation ?? "Enabled") === "Enabled",
    guaranteed: byFlavor(rows.map((row) => ({ ...row, amount: row.guaranteed.toNumber() }))),
    strategy: quota?.borrowStrategy ?? "LendAndBorrow",
    borrowLimitPercent: quota?.borrowLimitPercent ?? 50,
    absoluteBorrowLimit: byFlavor(
      rows.flatMap((row) =>
        row.absoluteBorrowLimit === null ? [] : [{ ...row, amount: row.absoluteBorrowLimit.toNumber() }],
      ),
    ),
    preemptTeamTasks: quota?.preemptPolicy ?? "LowerPriority",
    fairShareWeight: quota?.fairShareWeight ?? 0,
    ...(kueue === null ? {} : { kueue }),
  };
}

export async function loadGovernanceConfig(db: Db): Promise<GovernanceConfig> {
  const [teams, classes, scheduler] = await Promise.all([
    db.team.findMany({
      orderBy: { name: "asc" },
      select: { name: true, quota: { include: { resources: true } } },
    }),
    db.priorityClass.findMany({ orderBy: [{ weight: "desc" }, { name: "asc" }] }),
    db.schedulerConfig.findUnique({ where: { id: 1 } }),
  ]);
  return {
    teams: teams.map(({ name, quota }) => teamQuota(name, quota)),
    scheduler: {
      priorityClasses: classes.map(({ name, weight }) => ({ name, weight })),
      taskRanking: scheduler?.taskRanking ?? true,
      fairShare: scheduler?.fairShareEnabled ?? true,
      idleResourceSharing: scheduler?.idleSharingEnabled ?? true,
    },
  };
}
