import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, type ReconcileHarness } from "@/server/operator/testing/reconcile-harness";
import { createTestDatabase } from "@/test/database";
import { MAX_RECORDS_PER_RUN } from "./mutations";
import { listRestartEvents } from "./queries";
import { createRestartEventStore } from "./store";

/**
 * Issue 36 item 6: a crash loop is a few restart records with a count under every value of
 * rebound.dev/max-restarts-without-progress ("0", HyperPod's endless retries, wrote one row per crash:
 * 751 in 2 minutes), and a run keeps at most MAX_RECORDS_PER_RUN records. The operator's reconciler on
 * fakes of the cluster and agents, writing to real PostgreSQL.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase("it_crash_loop_rows");
  await migrate(database.url);
  db = createDb(database.url);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** The issue's rate: 751 crashes in 2 minutes, one every 160 ms. */
const CRASH_EVERY_MS = 160;
const LIMIT = "rebound.dev/max-restarts-without-progress";

function harness(name: string, annotation: string | undefined): ReconcileHarness {
  const yaml = demoJobYaml({
    name,
    nodes: 2,
    ranks: 2,
    gpusPerPod: 2,
    annotations: annotation === undefined ? undefined : { [LIMIT]: annotation },
  })
    // Both unset: HyperPod retries forever.
    .replace("    jobMaxRetryCount: 100\n", "")
    .replace("      maxFullJobRestarts: 5\n", "");
  return createReconcileHarness({
    yaml,
    nodes: 2,
    gpusPerNode: 2,
    restartEvents: createRestartEventStore(db),
  });
}

/** Reconciles until the job runs again (a back-off's wait skipped on the clock) or fails; true: failed. */
async function untilRecovered(h: ReconcileHarness): Promise<boolean> {
  for (let round = 0; round <= 50; round += 1) {
    await h.reconcile();
    const state = h.state();
    if (state.phase === "Failed") return true;
    const notBefore = state.recovery?.notBefore ?? null;
    if (notBefore !== null && notBefore > h.clock()) h.advance(notBefore - h.clock());
    if (state.phase === "Running" && !state.recovery && !state.record) return false;
  }
  throw new Error(`not recovered: ${JSON.stringify(h.state())}`);
}

/** Crashes pod 1's agent `crashes` times, each `everyMs` after the job runs again; returns how many happened. */
async function crashLoop(h: ReconcileHarness, name: string, crashes: number, everyMs: number) {
  for (let round = 0; round < 10 && h.state().phase !== "Running"; round += 1) await h.reconcile();
  for (let crash = 1; crash <= crashes; crash += 1) {
    h.advance(everyMs);
    h.agents.fault(h.agentUrl(`${name}-workers-1`), { reason: "WorkerCrash", at: h.clock() });
    if (await untilRecovered(h)) return crash;
  }
  return crashes;
}

describe("a crash loop's restart records", () => {
  it('folds 2 minutes of crashes under "0" (HyperPod\'s endless retries) into one record per action', async () => {
    const name = "loop-zero";
    const h = harness(name, "0");
    const crashes = await crashLoop(h, name, Math.round(120_000 / CRASH_EVERY_MS), CRASH_EVERY_MS);
    const rows = await listRestartEvents(db, { namespace: h.ref.namespace, jobName: name });
    const counted = rows.reduce((sum, row) => sum + (row.count ?? 1), 0);
    console.log(
      `crash loop, ${LIMIT}: "0", ${crashes} crashes in ${(crashes * CRASH_EVERY_MS) / 1000} s: ` +
        `${rows.length} restart records (${rows.map((row) => `${row.action} ×${row.count}`).join(", ")})`,
    );
    expect(crashes).toBe(750);
    expect(h.state().phase).toBe("Running");
    expect(counted).toBe(crashes);
    // The restart ladder answers the loop with in-place restarts and, every 11th, a full job restart.
    expect(rows.map((row) => row.action).sort()).toEqual(["JLR", "PLR"]);
    expect(rows.every((row) => row.faultReason === "WorkerCrash")).toBe(true);
  }, 120_000);

  for (const annotation of [undefined, "1", "1000"]) {
    it(`folds a crash loop under ${annotation === undefined ? "the default limit" : `"${annotation}"`}`, async () => {
      const name = `loop-${annotation ?? "default"}`;
      const h = harness(name, annotation);
      const crashes = await crashLoop(h, name, 30, CRASH_EVERY_MS);
      const rows = await listRestartEvents(db, { namespace: h.ref.namespace, jobName: name });
      console.log(
        `crash loop, ${LIMIT}: ${annotation ?? "(default)"}, ${crashes} crashes, job ${h.state().phase}: ` +
          `${rows.length} restart records (${rows.map((row) => `${row.action} ×${row.count}`).join(", ")})`,
      );
      expect(rows.reduce((sum, row) => sum + (row.count ?? 1), 0)).toBe(crashes);
      // One record per action the loop took (PLR, JLR, and FAIL when the limit fails the job).
      expect(new Set(rows.map((row) => row.action)).size).toBe(rows.length);
    }, 60_000);
  }
});

describe("a run's bound on restart records", () => {
  const T = 1_700_000_000_000;
  const run = { namespace: "bound-ns", jobName: "alternating", jobUid: "uid-alternating" };
  const failure = (index: number) => ({
    id: randomUUID(),
    ...run,
    ranks: [0],
    pods: ["alternating-workers-0"],
    node: "node-0",
    // Two failures taking turns never fold: each is a row of its own.
    reason: index % 2 === 0 ? "WorkerCrash" : "LogHang_JobHang",
    faultAt: new Date(T + index * 1000),
    detectedAt: new Date(T + index * 1000 + 50),
    action: "PLR" as const,
    message: `failure ${index}`,
    repeat: true,
  });

  it(`keeps the newest ${MAX_RECORDS_PER_RUN}, never a pending one, and leaves other runs alone`, async () => {
    const store = createRestartEventStore(db);
    const other = { ...failure(0), jobUid: "uid-other-run", id: randomUUID() };
    await store.record(other);
    const first = failure(0);
    await store.record(first); // left pending: a restart in flight
    const total = MAX_RECORDS_PER_RUN + 250;
    for (let index = 1; index < total; index += 1) {
      const row = failure(index);
      await store.record(row);
      await store.complete(row.id, {
        outcome: "recovered",
        recoveredAt: new Date(T + index * 1000 + 90),
        message: "ok",
      });
    }
    const rows = await listRestartEvents(db, run);
    console.log(`${total} alternating failures of one run: ${rows.length} restart records kept`);
    expect(rows).toHaveLength(MAX_RECORDS_PER_RUN + 1);
    expect(rows[0]?.id).toBe(first.id);
    expect(rows.slice(1).map((row) => row.faultAt.getTime())).toEqual(
      Array.from({ length: MAX_RECORDS_PER_RUN }, (_, i) => T + (total - MAX_RECORDS_PER_RUN + i) * 1000),
    );
    expect(await listRestartEvents(db, { ...run, jobUid: other.jobUid })).toHaveLength(1);
  }, 120_000);
});
