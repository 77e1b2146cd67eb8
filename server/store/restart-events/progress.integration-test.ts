import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createTestDatabase } from "@/test/database";
import { listRestartEvents, listRestartSummaries } from "./queries";
import { createRestartEventStore } from "./store";

/**
 * Training progress on the restart rows (goodput, contract seam 1) on real PostgreSQL: recorded with the
 * fault, the resume set once, read back as the row's `progress`; a crash-loop repeat keeps the first
 * failure's last progress; a restarted operator finds the row still waiting for its training.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase("it_restart_progress");
  await migrate(database.url);
  db = createDb(database.url);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const T = 1_700_000_000_000;

const fault = (jobName: string, overrides: { id?: string; faultAt?: number } = {}) => ({
  id: overrides.id ?? randomUUID(),
  jobUid: `uid-${jobName}`,
  namespace: "progress-ns",
  jobName,
  ranks: [3],
  pods: [`${jobName}-workers-0`],
  node: "node-0",
  reason: "WorkerCrash",
  faultAt: new Date(overrides.faultAt ?? T),
  detectedAt: new Date((overrides.faultAt ?? T) + 40),
  action: "PLR" as const,
  message: "rank 3 exited with code 1",
});

const recovered = (at: number) => ({
  outcome: "recovered" as const,
  recoveredAt: new Date(at),
  message: "ok",
});

describe("restart progress on Postgres", () => {
  it("records the last progress with the fault and the resume once", async () => {
    const store = createRestartEventStore(db);
    const row = fault("progress-once");
    await store.record({ ...row, progressStep: 107, progressAt: new Date(T) });
    expect(await store.awaitingResume?.(row.jobUid)).toMatchObject({ id: row.id, progressStep: 107 });
    await store.complete(row.id, recovered(T + 1000));
    expect(await store.resume?.(row.id, { resumeStep: 100, resumedAt: null })).toBe(true);
    expect(await store.resume?.(row.id, { resumeStep: 100, resumedAt: new Date(T + 8000) })).toBe(true);
    expect(await store.resume?.(row.id, { resumeStep: 1, resumedAt: new Date(T + 9000) })).toBe(false);
    expect(await store.awaitingResume?.(row.jobUid)).toBeNull();
    const [read] = await listRestartEvents(db, { namespace: row.namespace, jobName: row.jobName });
    expect(read?.progress).toEqual({
      progressStep: 107,
      progressAt: new Date(T).toISOString(),
      resumeStep: 100,
      resumedAt: new Date(T + 8000).toISOString(),
    });
    const [summary] = await listRestartSummaries(db, { id: row.id });
    expect(summary?.progress).toEqual(read?.progress);
  });

  it("reads a row without progress as progress null (an older row)", async () => {
    const store = createRestartEventStore(db);
    const row = fault("progress-none");
    await store.record(row);
    const [read] = await listRestartEvents(db, { namespace: row.namespace, jobName: row.jobName });
    expect(read?.progress).toBeNull();
    expect(await store.awaitingResume?.(row.jobUid)).toBeNull();
  });

  it("keeps the first failure's last progress when a crash loop repeats the record", async () => {
    const store = createRestartEventStore(db);
    const first = fault("progress-loop");
    await store.record({ ...first, progressStep: 50, progressAt: new Date(T) });
    await store.complete(first.id, recovered(T + 500));
    await store.resume?.(first.id, { resumeStep: 40, resumedAt: null });
    const again = fault("progress-loop", { faultAt: T + 2000 });
    await store.record({ ...again, repeat: true, progressStep: 41, progressAt: new Date(T + 1900) });
    const rows = await listRestartEvents(db, { namespace: again.namespace, jobName: again.jobName });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: again.id, count: 2 });
    expect(rows[0]?.progress).toEqual({
      progressStep: 50,
      progressAt: new Date(T).toISOString(),
      resumeStep: null,
      resumedAt: null,
    });
  });

  it("does not wait for a failed row's training", async () => {
    const store = createRestartEventStore(db);
    const row = fault("progress-failed");
    await store.record({ ...row, progressStep: 5, progressAt: new Date(T) });
    await store.complete(row.id, { outcome: "failed", recoveredAt: null, message: "job failed" });
    expect(await store.awaitingResume?.(row.jobUid)).toBeNull();
  });
});
