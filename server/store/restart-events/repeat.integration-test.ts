import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createTestDatabase } from "@/test/database";
import { listRestartEvents } from "./queries";
import { createRestartEventStore } from "./store";

/**
 * Issue 17: repeated identical failures without progress (a crash loop) are one record with a count, on
 * real PostgreSQL; the collapsed record takes the new id (so its completion lands), a retried write of the
 * same id changes nothing, and a different failure or a failure after progress gets its own row.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase("it_restart_repeat");
  await migrate(database.url);
  db = createDb(database.url);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const JOB = { namespace: "hyperpod-ns-llm-research", jobName: "looping", jobUid: "uid-looping" };

const failure = (at: number, extra: { repeat?: boolean; reason?: string } = {}) => ({
  id: randomUUID(),
  ...JOB,
  ranks: [0],
  pods: ["looping-workers-0"],
  node: "node-0",
  reason: extra.reason ?? "WorkerCrash",
  faultAt: new Date(at),
  detectedAt: new Date(at + 50),
  action: "PLR" as const,
  message: `exited with code 3 at ${at}`,
  repeat: extra.repeat,
});

describe("restart records of a crash loop", () => {
  it("collapses repeats into one record with a count, and keeps other failures apart", async () => {
    const store = createRestartEventStore(db);
    const first = failure(1_000);
    expect(await store.record(first)).toBe(true);
    await store.complete(first.id, { outcome: "recovered", recoveredAt: new Date(1_500), message: "ok" });
    const repeats = [failure(2_000, { repeat: true }), failure(3_000, { repeat: true })];
    for (const repeat of repeats) {
      expect(await store.record(repeat)).toBe(true);
      expect(await store.record(repeat)).toBe(false);
    }
    const last = repeats[1];
    if (!last) throw new Error("no repeat");
    let rows = await listRestartEvents(db, JOB);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: last.id, count: 3, outcome: "pending", message: last.message });
    expect(rows[0]?.faultAt.getTime()).toBe(3_000);
    expect(await store.complete(last.id, { outcome: "failed", recoveredAt: null, message: "again" })).toBe(
      true,
    );

    // Another reason, and the same failure after progress (no repeat flag): rows of their own.
    expect(await store.record(failure(4_000, { repeat: true, reason: "LogHang_JobHang" }))).toBe(true);
    expect(await store.record(failure(5_000))).toBe(true);
    rows = await listRestartEvents(db, JOB);
    expect(rows.map((row) => row.count)).toEqual([3, 1, 1]);
  });
});
