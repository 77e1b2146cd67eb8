import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { InjectedFailure } from "@/server/operator/testing/call-faults";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, type ReconcileHarness } from "@/server/operator/testing/reconcile-harness";
import { createTestDatabase } from "@/test/database";
import { listPendingRestartEvents, listRestartEvents } from "./queries";
import { createRestartEventStore } from "./store";

/**
 * The restart timeline's writes on real PostgreSQL are idempotent: a row inserted again by its id stays
 * one row, a completion applied again changes nothing; and the reconciler, retrying a step whose answer
 * was lost, leaves one completed row.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase("it_restart_events");
  await migrate(database.url);
  db = createDb(database.url);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const fault = (id: string, jobName: string) => ({
  id,
  jobUid: `uid-${jobName}`,
  namespace: "hyperpod-ns-llm-research",
  jobName,
  ranks: [2, 3],
  pods: [`${jobName}-workers-1`],
  node: "node-1",
  reason: "WorkerCrash",
  faultAt: new Date(1_700_000_000_000),
  detectedAt: new Date(1_700_000_000_040),
  action: "PLR" as const,
  message: "rank 3 exited with code 1",
});

describe("the restart-event store on Postgres", () => {
  it("inserts a row once by its id and completes it once", async () => {
    const store = createRestartEventStore(db);
    const id = randomUUID();
    expect(await store.record(fault(id, "store-once"))).toBe(true);
    expect(await store.record({ ...fault(id, "store-once"), message: "a retry" })).toBe(false);
    const first = {
      outcome: "recovered" as const,
      recoveredAt: new Date(1_700_000_000_300),
      message: "done",
    };
    expect(await store.complete(id, first)).toBe(true);
    const later = { outcome: "failed" as const, recoveredAt: null, message: "too late" };
    expect(await store.complete(id, later)).toBe(false);
    const rows = await listRestartEvents(db, {
      namespace: "hyperpod-ns-llm-research",
      jobName: "store-once",
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id,
      outcome: "recovered",
      recoveredAt: first.recoveredAt,
      message: "done",
      ranks: [2, 3],
    });
  });

  it("writes a FAIL decision's row as failed, never pending", async () => {
    const store = createRestartEventStore(db);
    const id = randomUUID();
    await store.record({
      ...fault(id, "store-fail"),
      action: "FAIL",
      message: "jobMaxRetryCount (0) exceeded",
    });
    const rows = await listRestartEvents(db, {
      namespace: "hyperpod-ns-llm-research",
      jobName: "store-fail",
    });
    expect(rows.map((row) => row.outcome)).toEqual(["failed"]);
  });
});

async function reconcileUntilRecovered(h: ReconcileHarness, onFailure: () => void) {
  for (let round = 0; round < 40; round += 1) {
    await h.reconcile().catch((error: unknown) => {
      if (!(error instanceof InjectedFailure)) throw error;
      onFailure();
    });
    const state = h.state();
    if (state.phase === "Running" && !state.recovery && !state.record && h.log.fired()) return;
  }
  throw new Error(`no recovery: ${JSON.stringify(h.state())}`);
}

describe("the reconciler on Postgres, a step retried after its answer was lost", () => {
  for (const call of ["db.record", "db.complete"] as const) {
    for (const mode of ["retry", "crash"] as const) {
      it(`leaves one completed row (${call} fails after writing, then ${mode})`, async () => {
        const name = `store-${call.slice(3)}-${mode}`;
        const h = createReconcileHarness({
          yaml: demoJobYaml({ name, nodes: 2, ranks: 2, gpusPerPod: 2 }),
          nodes: 2,
          gpusPerNode: 2,
          restartEvents: createRestartEventStore(db),
        });
        for (let round = 0; round < 10 && h.state().phase !== "Running"; round += 1) await h.reconcile();
        h.log.arm({ call, nth: 1, when: "after" });
        h.agents.fault(h.agentUrl(`${name}-workers-1`), { reason: "WorkerCrash", at: h.clock() });
        await reconcileUntilRecovered(h, () => (mode === "crash" ? h.crash() : undefined));
        const rows = await listRestartEvents(db, { namespace: h.ref.namespace, jobName: name });
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ faultReason: "WorkerCrash", action: "PLR", outcome: "recovered" });
        expect(rows[0]?.recoveredAt).toBeInstanceOf(Date);
        expect(h.cluster.status().restartCount).toBe(1);
      });
    }
  }

  it("leaves no row pending", async () => {
    expect(await listPendingRestartEvents(db)).toEqual([]);
  });
});
