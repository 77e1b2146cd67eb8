import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { DEFAULT_KUEUE_SETTINGS } from "@/server/domain/governance/kueue-settings";
import { AppError } from "@/server/errors";
import type { QuotaUpdate, QuotaView } from "@/server/services/governance/governance.schema";
import { writeAudit } from "@/server/store/audit/mutations";
import { storedKueueSettings } from "@/server/store/governance/config";
import { staleWriteError } from "./conflict";
import { assertFits, type CapacityReading, GUARANTEE_LOCK_KEY, guaranteedGpus } from "./overcommit";

/** A team's compute quota (HyperPod ComputeQuota): read, and changed under optimistic concurrency. */

const quotaInclude = {
  resources: { orderBy: [{ instanceType: "asc" }, { resource: "asc" }] },
  updatedBy: { select: { id: true, name: true } },
} satisfies Prisma.ComputeQuotaInclude;

type QuotaRow = Prisma.ComputeQuotaGetPayload<{ include: typeof quotaInclude }>;
type TeamRow = { id: string; name: string; displayName: string };

export type QuotaState = Omit<QuotaView, "canEdit">;

/** The stored advanced Kueue settings, or the defaults. */
const kueueOf = (quota: QuotaRow | null) =>
  storedKueueSettings(quota?.kueueSettings) ?? DEFAULT_KUEUE_SETTINGS;

function viewOf(team: TeamRow, quota: QuotaRow | null): QuotaState {
  return {
    team: team.name,
    displayName: team.displayName,
    version: quota?.version ?? 1,
    activation: quota?.activation ?? "Enabled",
    strategy: quota?.borrowStrategy ?? "LendAndBorrow",
    borrowLimitPercent: quota?.borrowLimitPercent ?? 50,
    preemptTeamTasks: quota?.preemptPolicy ?? "LowerPriority",
    fairShareWeight: quota?.fairShareWeight ?? 0,
    kueue: kueueOf(quota),
    description: quota?.description ?? "",
    resources: (quota?.resources ?? []).map((row) => ({
      instanceType: row.instanceType,
      resource: row.resource,
      guaranteed: row.guaranteed.toNumber(),
      absoluteBorrowLimit: row.absoluteBorrowLimit?.toNumber() ?? null,
    })),
    updatedAt: quota?.updatedAt ?? null,
    updatedBy: quota?.updatedBy ?? null,
  };
}

async function teamByName(db: Prisma.TransactionClient, name: string): Promise<TeamRow> {
  const team = await db.team.findUnique({
    where: { name },
    select: { id: true, name: true, displayName: true },
  });
  if (!team) throw new AppError("NOT_FOUND", `team: no team named ${name}`);
  return team;
}

export async function getQuota(db: Db, team: string): Promise<QuotaState> {
  const row = await teamByName(db, team);
  const quota = await db.computeQuota.findUnique({ where: { teamId: row.id }, include: quotaInclude });
  return viewOf(row, quota);
}

/** Every team's quota, by team name (the overview). */
export async function listQuotas(db: Db): Promise<QuotaState[]> {
  const teams = await db.team.findMany({
    orderBy: { name: "asc" },
    select: { id: true, name: true, displayName: true, quota: { include: quotaInclude } },
  });
  return teams.map((team) => viewOf(team, team.quota));
}

/** The part of a quota an audit row records (before and after). */
function auditedOf(state: QuotaState) {
  const { updatedAt: _at, updatedBy: _by, team: _team, displayName: _name, ...rest } = state;
  return rest;
}

/** Every other team's guaranteed GPUs together (enabled quotas only), read inside the caller's transaction. */
export async function othersGuaranteedGpus(tx: Prisma.TransactionClient, teamId: string | null) {
  const quotas = await tx.computeQuota.findMany({
    where: teamId === null ? {} : { teamId: { not: teamId } },
    select: { activation: true, resources: { select: { resource: true, guaranteed: true } } },
  });
  return quotas.reduce(
    (sum, quota) =>
      sum +
      guaranteedGpus({
        active: quota.activation === "Enabled",
        resources: quota.resources.map((row) => ({ ...row, guaranteed: row.guaranteed.toNumber() })),
      }),
    0,
  );
}

/**
 * Kueue applies `borrowWithinCohort` with classical preemption only, not with fair sharing: saving it while
 * the scheduler config has fair share on is refused rather than saved to do nothing.
 */
async function assertBorrowWithinCohortAllowed(tx: Prisma.TransactionClient, input: QuotaUpdate) {
  if (input.kueue?.borrowWithinCohort.policy !== "LowerPriority") return;
  const scheduler = await tx.schedulerConfig.findUnique({
    where: { id: 1 },
    select: { fairShareEnabled: true },
  });
  if (scheduler?.fairShareEnabled ?? true)
    throw new AppError(
      "INVALID",
      "kueue.borrowWithinCohort.policy: Kueue preempts while borrowing only without fair sharing; turn fair share off in the scheduler config first, or choose Never",
    );
}

/**
 * Replaces the team's quota with `input` when `input.version` is the current version: the version goes up by
 * one, `updatedById` is the actor, and one audit row holds before and after. A stale version is refused
 * (CONFLICT) naming who changed it, and nothing changes. A raise of the team's guaranteed GPUs that would
 * over-commit the cluster (`capacity`) is refused (INVALID, naming the team, the value and the capacity)
 * unless `input.allowOvercommit`; the audit row records that choice.
 */
export async function updateQuota(
  db: Db,
  args: { input: QuotaUpdate; actorId: string; capacity: CapacityReading },
): Promise<QuotaState> {
  const { input, actorId } = args;
  return db.$transaction(async (tx) => {
    // One guarantee change at a time: two teams raising at once must not both fit the same spare GPUs.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GUARANTEE_LOCK_KEY})`;
    const team = await teamByName(tx, input.team);
    const existing =
      (await tx.computeQuota.findUnique({ where: { teamId: team.id }, include: quotaInclude })) ??
      (await tx.computeQuota.create({ data: { teamId: team.id }, include: quotaInclude }));
    const before = viewOf(team, existing);
    const written = await tx.computeQuota.updateMany({
      where: { id: existing.id, version: input.version },
      data: {
        activation: input.activation,
        borrowStrategy: input.strategy,
        borrowLimitPercent: input.borrowLimitPercent,
        preemptPolicy: input.preemptTeamTasks,
        fairShareWeight: input.fairShareWeight,
        ...(input.kueue === undefined ? {} : { kueueSettings: input.kueue }),
        description: input.description ?? existing.description,
        version: { increment: 1 },
        updatedById: actorId,
      },
    });
    if (written.count === 0) {
      const current = viewOf(
        team,
        await tx.computeQuota.findUnique({ where: { id: existing.id }, include: quotaInclude }),
      );
      throw staleWriteError(`the quota of ${team.name}`, {
        version: current.version,
        sent: input.version,
        updatedAt: current.updatedAt,
        updatedBy: current.updatedBy?.name ?? null,
      });
    }
    // After the version check (a stale read is told so first); a refusal here rolls the write above back.
    await assertBorrowWithinCohortAllowed(tx, input);
    const allowOvercommit = input.allowOvercommit === true;
    assertFits({
      team: team.name,
      before: guaranteedGpus({ active: before.activation === "Enabled", resources: before.resources }),
      asked: guaranteedGpus({ active: input.activation === "Enabled", resources: input.resources }),
      others: await othersGuaranteedGpus(tx, team.id),
      capacity: args.capacity,
      allowOvercommit,
    });
    await tx.computeQuotaResource.deleteMany({ where: { quotaId: existing.id } });
    await tx.computeQuotaResource.createMany({
      data: input.resources.map((row) => ({
        quotaId: existing.id,
        instanceType: row.instanceType,
        resource: row.resource,
        guaranteed: row.guaranteed,
        absoluteBorrowLimit: row.absoluteBorrowLimit ?? null,
      })),
    });
    const after = viewOf(
      team,
      await tx.computeQuota.findUnique({ where: { id: existing.id }, include: quotaInclude }),
    );
    await writeAudit(tx, {
      userId: actorId,
      action: "quota.update",
      target: `team/${team.name}`,
      details: {
        before: auditedOf(before),
        after: auditedOf(after),
        ...(allowOvercommit ? { allowOvercommit } : {}),
      } as Prisma.InputJsonValue,
    });
    return after;
  });
}
