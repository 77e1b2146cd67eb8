import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { createSeededTestDatabase } from "@/test/database";
import type { QuotaUpdate } from "./governance.schema";
import { getQuota, updateQuota } from "./quota";
import { getScheduler, updateScheduler } from "./scheduler";

/**
 * A team's advanced Kueue settings in Postgres (issue 37): saved with the quota, read back by the Kueue sync
 * and the local admission (loadGovernanceConfig), kept when a change leaves them out, audited with before and
 * after, and `borrowWithinCohort: LowerPriority` refused while fair share is on (Kueue applies it only
 * without fair sharing), naming the field, with nothing changed.
 */

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let actorId: string;
const capacity = { ok: true as const, gpus: 1000 };

const knobs = {
  reclaimWithinCohort: "LowerPriority" as const,
  borrowWithinCohort: { policy: "Never" as const, maxPriorityThreshold: null },
  lendingLimit: 4,
  queueingStrategy: "StrictFIFO" as const,
  withinClusterQueue: "LowerOrNewerEqualPriority" as const,
};

async function input(kueue?: QuotaUpdate["kueue"]): Promise<QuotaUpdate> {
  const current = await getQuota(db, "vision");
  return {
    team: "vision",
    version: current.version,
    activation: current.activation,
    strategy: current.strategy,
    borrowLimitPercent: 800,
    preemptTeamTasks: current.preemptTeamTasks,
    fairShareWeight: current.fairShareWeight,
    resources: current.resources,
    ...(kueue === undefined ? {} : { kueue }),
  };
}

beforeAll(async () => {
  database = await createSeededTestDatabase("kueue_settings");
  db = createDb(database.url);
  const admin = await db.user.findFirstOrThrow({ where: { email: "admin@rebound.local" } });
  actorId = admin.id;
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

describe("advanced Kueue settings of a team", () => {
  it("starts at the defaults, then saves, loads and audits them; a change without them keeps them", async () => {
    expect((await getQuota(db, "vision")).kueue).toEqual({
      reclaimWithinCohort: "Any",
      borrowWithinCohort: { policy: "Never", maxPriorityThreshold: null },
      lendingLimit: null,
      queueingStrategy: "BestEffortFIFO",
      withinClusterQueue: null,
    });
    const saved = await updateQuota(db, { input: await input(knobs), actorId, capacity });
    expect(saved.kueue).toEqual(knobs);
    expect(saved.borrowLimitPercent).toBe(800);
    const team = (await loadGovernanceConfig(db)).teams.find((quota) => quota.team === "vision");
    expect(team?.kueue).toEqual(knobs);
    expect(team?.borrowLimitPercent).toBe(800);

    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "quota.update", target: "team/vision" },
      orderBy: { createdAt: "desc" },
    });
    const details = audit.details as { before: { kueue: unknown }; after: { kueue: unknown } };
    expect(details.before.kueue).toMatchObject({ reclaimWithinCohort: "Any", lendingLimit: null });
    expect(details.after.kueue).toEqual(knobs);

    const kept = await updateQuota(db, { input: await input(), actorId, capacity });
    expect(kept.kueue).toEqual(knobs);
  });

  it("refuses preempting while borrowing under fair sharing, and fair sharing while a team does", async () => {
    const borrowing = {
      ...knobs,
      borrowWithinCohort: { policy: "LowerPriority" as const, maxPriorityThreshold: 20 },
    };
    const before = await getQuota(db, "vision");
    await expect(updateQuota(db, { input: await input(borrowing), actorId, capacity })).rejects.toThrow(
      /^kueue\.borrowWithinCohort\.policy: Kueue preempts while borrowing only without fair sharing/,
    );
    expect((await getQuota(db, "vision")).version).toBe(before.version);

    const scheduler = await getScheduler(db);
    const schedulerInput = {
      version: scheduler.version,
      taskRanking: scheduler.taskRanking,
      fairShare: false,
      idleResourceSharing: scheduler.idleResourceSharing,
      priorityClasses: scheduler.priorityClasses.map(({ name, weight }) => ({ name, weight })),
    };
    const off = await updateScheduler(db, { input: schedulerInput, actorId, users: new Map() });
    const saved = await updateQuota(db, { input: await input(borrowing), actorId, capacity });
    expect(saved.kueue.borrowWithinCohort).toEqual({ policy: "LowerPriority", maxPriorityThreshold: 20 });

    await expect(
      updateScheduler(db, {
        input: { ...schedulerInput, version: off.version, fairShare: true },
        actorId,
        users: new Map(),
      }),
    ).rejects.toThrow(/^fairShare: .*vision has borrowWithinCohort LowerPriority; set it to Never first$/);
    expect((await getScheduler(db)).fairShare).toBe(false);
  });
});
