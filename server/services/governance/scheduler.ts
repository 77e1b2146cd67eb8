import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { SchedulerUpdate, SchedulerView } from "@/server/services/governance/governance.schema";
import { writeAudit } from "@/server/store/audit/mutations";
import { staleWriteError } from "./conflict";

/**
 * The cluster's scheduler config (HyperPod ClusterSchedulerConfig): one row (id 1) with its priority classes
 * under one version. Changed under optimistic concurrency, audited with before and after.
 */
export type SchedulerState = Omit<SchedulerView, "canEdit">;

const configInclude = {
  updatedBy: { select: { id: true, name: true } },
} satisfies Prisma.SchedulerConfigInclude;

async function readState(db: Prisma.TransactionClient, usage: ReadonlyMap<string, number>) {
  const [config, classes] = await Promise.all([
    db.schedulerConfig.findUnique({ where: { id: 1 }, include: configInclude }),
    db.priorityClass.findMany({ orderBy: [{ weight: "desc" }, { name: "asc" }] }),
  ]);
  const state: SchedulerState = {
    version: config?.version ?? 1,
    taskRanking: config?.taskRanking ?? true,
    fairShare: config?.fairShareEnabled ?? true,
    idleResourceSharing: config?.idleSharingEnabled ?? true,
    priorityClasses: classes.map((entry) => ({
      name: entry.name,
      weight: entry.weight,
      description: entry.description,
      jobs: usage.get(entry.name) ?? 0,
    })),
    updatedAt: config?.updatedAt ?? null,
    updatedBy: config?.updatedBy ?? null,
  };
  return state;
}

/** `usage`: how many unfinished jobs name each priority class. */
export function getScheduler(db: Db, usage: ReadonlyMap<string, number> = new Map()) {
  return readState(db, usage);
}

/**
 * Refuses removing a priority class that unfinished jobs still name: they would be refused or fall to
 * weight 0 on their next admission.
 */
export function checkRemovals(args: {
  current: readonly string[];
  next: SchedulerUpdate["priorityClasses"];
  users: ReadonlyMap<string, readonly string[]>;
}): void {
  const kept = new Set(args.next.map((entry) => entry.name));
  const problems = args.current
    .filter((name) => !kept.has(name) && (args.users.get(name)?.length ?? 0) > 0)
    .map((name) => {
      const jobs = args.users.get(name) ?? [];
      const listed = jobs.slice(0, 5).join(", ") + (jobs.length > 5 ? `, and ${jobs.length - 5} more` : "");
      return `priority class ${name} is still used by ${jobs.length} job${jobs.length === 1 ? "" : "s"} (${listed})`;
    });
  if (problems.length > 0) {
    throw new AppError("INVALID", `priorityClasses: ${problems.join("; ")}: keep it until they finish`);
  }
}

function audited(state: SchedulerState) {
  return {
    version: state.version,
    taskRanking: state.taskRanking,
    fairShare: state.fairShare,
    idleResourceSharing: state.idleResourceSharing,
    priorityClasses: state.priorityClasses.map(({ name, weight }) => ({ name, weight })),
  };
}

async function replaceClasses(tx: Prisma.TransactionClient, next: SchedulerUpdate["priorityClasses"]) {
  await tx.priorityClass.deleteMany({ where: { name: { notIn: next.map((entry) => entry.name) } } });
  for (const entry of next) {
    const description = entry.description;
    await tx.priorityClass.upsert({
      where: { name: entry.name },
      create: { name: entry.name, weight: entry.weight, description: description ?? "" },
      update: { weight: entry.weight, ...(description === undefined ? {} : { description }) },
    });
  }
}

/**
 * Fair share on is refused while a team's advanced Kueue settings preempt while borrowing
 * (`borrowWithinCohort: LowerPriority`), which Kueue applies only without fair sharing.
 */
async function assertNoBorrowWithinCohort(tx: Prisma.TransactionClient) {
  const quotas = await tx.computeQuota.findMany({
    where: { kueueSettings: { path: ["borrowWithinCohort", "policy"], equals: "LowerPriority" } },
    select: { team: { select: { name: true } } },
    orderBy: { team: { name: "asc" } },
  });
  if (quotas.length === 0) return;
  const teams = quotas.map((quota) => quota.team.name).join(", ");
  throw new AppError(
    "INVALID",
    `fairShare: Kueue does not preempt while borrowing under fair sharing, and ${teams} ${quotas.length === 1 ? "has" : "have"} borrowWithinCohort LowerPriority; set it to Never first`,
  );
}

/**
 * Writes the scheduler config and its priority classes when `input.version` is current: version + 1,
 * `updatedById` the actor, one audit row. Stale: CONFLICT naming who changed it; nothing changes.
 */
export async function updateScheduler(
  db: Db,
  args: { input: SchedulerUpdate; actorId: string; users: ReadonlyMap<string, readonly string[]> },
): Promise<SchedulerState> {
  const { input, actorId } = args;
  const usage = new Map([...args.users].map(([name, jobs]) => [name, jobs.length]));
  return db.$transaction(async (tx) => {
    await tx.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
    const before = await readState(tx, usage);
    checkRemovals({
      current: before.priorityClasses.map((entry) => entry.name),
      next: input.priorityClasses,
      users: args.users,
    });
    const written = await tx.schedulerConfig.updateMany({
      where: { id: 1, version: input.version },
      data: {
        taskRanking: input.taskRanking,
        fairShareEnabled: input.fairShare,
        idleSharingEnabled: input.idleResourceSharing,
        version: { increment: 1 },
        updatedById: actorId,
      },
    });
    if (written.count === 0) {
      const current = await readState(tx, usage);
      throw staleWriteError("the scheduler config", {
        version: current.version,
        sent: input.version,
        updatedAt: current.updatedAt,
        updatedBy: current.updatedBy?.name ?? null,
      });
    }
    // After the version check (a stale read is told so first); a refusal rolls the write above back.
    if (input.fairShare) await assertNoBorrowWithinCohort(tx);
    await replaceClasses(tx, input.priorityClasses);
    const after = await readState(tx, usage);
    await writeAudit(tx, {
      userId: actorId,
      action: "scheduler.update",
      target: "scheduler",
      details: { before: audited(before), after: audited(after) },
    });
    return after;
  });
}
