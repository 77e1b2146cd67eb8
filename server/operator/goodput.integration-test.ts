import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { createDb } from "@/server/db/client";
import { timelineTotals } from "@/server/domain/console/timeline";
import { timelineEntries } from "@/server/services/jobs/job-view";
import { listPendingRestartEvents, listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { injectFault } from "./api/faults";
import { demoJobYaml } from "./testing/jobs";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * Goodput as training progress on a real local operator (real agents, demo-trainer workers, PostgreSQL):
 * each restart row records the job's last progress and when its training is back. A crash restarts from
 * the demo trainer's checkpoint (rank 0 saves every 10 steps): the row's lost steps are the steps since that
 * checkpoint, and its lost seconds include redoing them. A hang found by the log rule counts from the
 * stalled rank's last step line, so the rule's window is lost time the control plane never saw.
 */
const STEP_MS = 400;
const HANG_S = 2;
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-goodput" };

let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_goodput");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 1,
    gpusPerNode: 2,
    config: { stopTimeoutSeconds: 5 },
  });
  await operator.submit(
    demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, stepMs: STEP_MS, hangSeconds: HANG_S }),
  );
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  const db = database ? createDb(database.url) : null;
  const pending = db ? await listPendingRestartEvents(db).finally(() => db.$disconnect()) : [];
  await database?.drop();
  expect(pending).toEqual([]);
}, 60_000);

/** The job's lowest rank step once every rank is running and stepping, else null. */
function jobStep(): number | null {
  const live = operator.live(ref);
  if (live?.phase !== "Running" || live.recovery !== null) return null;
  const steps = live.pods.flatMap((pod) => pod.ranks.map((rank) => rank.step));
  if (steps.length !== 2 || steps.some((step) => step === null)) return null;
  return Math.min(...(steps as number[]));
}

/** Waits until the job steps with its step's last digit in [from, to] (away from a checkpoint at 10·k). */
const stepBetween = (from: number, to: number, min = 0) =>
  operator.waitFor(
    `job step ending in ${from}..${to}`,
    () => {
      const step = jobStep();
      return step !== null && step >= min && step % 10 >= from && step % 10 <= to ? step : null;
    },
    60_000,
  );

async function resumedRow(count: number) {
  return operator.waitFor(
    `restart #${count} with its training back`,
    async () => {
      const rows = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
      const row = rows[count - 1];
      return row?.outcome === "recovered" && row.progress?.resumedAt ? { row, rows } : null;
    },
    60_000,
  );
}

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : Number.NaN);

describe("goodput as training progress, on the local back end", () => {
  it("a crash after a checkpoint: lost steps are the steps since it, lost time includes redoing them", async () => {
    await stepBetween(3, 6, 12);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 1 },
    });
    const { row } = await resumedRow(1);
    const progress = row.progress;
    expect(row.faultReason).toBe("WorkerCrash");
    expect(progress?.progressStep).not.toBeNull();
    const step = progress?.progressStep ?? 0;
    const checkpoint = Math.floor(step / 10) * 10;
    expect(step % 10).toBeGreaterThanOrEqual(3);
    expect(progress?.resumeStep).toBe(checkpoint);
    // The crash is the last progress; training is back once the steps since the checkpoint are redone.
    expect(ms(progress?.progressAt)).toBe(row.faultAt.getTime());
    const lostMs = ms(progress?.resumedAt) - ms(progress?.progressAt);
    expect(lostMs).toBeGreaterThan((step - checkpoint - 1) * STEP_MS);
    expect(lostMs).toBeGreaterThan((row.recoveredAt?.getTime() ?? 0) - row.faultAt.getTime());
  });

  it("a hang found by the log rule: lost time runs from the stalled rank's last step line", async () => {
    await stepBetween(3, 6, 12);
    // Global rank 0 is local rank 0 of the pod: the rank whose rules fault the job.
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "hang", rank: 0 },
    });
    const { row, rows } = await resumedRow(2);
    const progress = row.progress;
    expect(row.faultReason).toBe("LogHang_JobHang");
    const progressAt = ms(progress?.progressAt);
    // The rule's window (no step line for HANG_S) passed between the last progress and the fault.
    expect(row.faultAt.getTime() - progressAt).toBeGreaterThan(HANG_S * 1000 - 500);
    const lostMs = ms(progress?.resumedAt) - progressAt;
    const controlPlaneMs = (row.recoveredAt?.getTime() ?? 0) - row.faultAt.getTime();
    expect(lostMs).toBeGreaterThan(controlPlaneMs + HANG_S * 1000 - 500);
    expect(progress?.resumeStep).toBeLessThanOrEqual(progress?.progressStep ?? -1);

    // The job's totals count it: measured as progress, more downtime than the control plane saw.
    const job = await operator.backend.getJob(ref);
    const startedAt = job?.createdAt.getTime() ?? 0;
    const now = Date.now();
    const entries = timelineEntries(rows);
    const totals = timelineTotals(entries, { startedAt, now });
    const controlPlane = timelineTotals(
      entries.map((entry) => ({ ...entry, progressAt: null, resumedAt: null })),
      { startedAt, now },
    );
    expect(totals.basis).toBe("progress");
    expect(totals.downtimeMs).toBeGreaterThan(controlPlane.downtimeMs + HANG_S * 1000 - 500);
    expect(totals.goodput).toBeLessThan(controlPlane.goodput ?? 0);
    expect(totals.lostSteps).toBe(
      rows.reduce((sum, r) => sum + (r.progress?.progressStep ?? 0) - (r.progress?.resumeStep ?? 0), 0),
    );
  });
});
