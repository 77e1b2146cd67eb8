import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { steppingRanks } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { liveHub } from "@/server/services/wiring";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { jobPage } from "./queries";

/**
 * What one tick of the job page reads (issue 35 item 4): the operator's answer carries the run's restart
 * rows, so the page is built without a restart-row query of its own (before, the gateway dropped them and
 * every tick read them again, ~4 queries a second per watched job); a source that sends none (console-only
 * mode) has them read once. Pages are kept in the live hub's one cache, shared by viewers for 200 ms and
 * dropped with it. Real operator behind its HTTP API, real agents, real Postgres; the database and the
 * source are wrapped only to count the calls made through them.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-page-reads" };

/** The database, counting every call on its restart rows (findMany, groupBy, count, ...). */
function countingDb(real: Db) {
  const calls = { restartRows: 0 };
  const delegate = new Proxy(real.restartEvent, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.restartRows += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const counted = new Proxy(real, {
    get: (target, key) => (key === "restartEvent" ? delegate : Reflect.get(target, key, target)),
  });
  return { db: counted as Db, calls };
}

/** The source, counting its job reads; `withoutRows` answers as a source that sends no restart rows. */
function countingSource(real: ClusterSource, opts: { withoutRows?: boolean } = {}) {
  const calls = { job: 0 };
  const counted: ClusterSource = {
    ...real,
    async job(job) {
      calls.job += 1;
      const detail = await real.job(job);
      return detail && opts.withoutRows ? { ...detail, restarts: null } : detail;
    },
  };
  return { source: counted, calls };
}

/** One tick's page, built afresh (the hub's shared reads dropped first, as a mutation would). */
async function freshPage(pageDb: Db, pageSource: ClusterSource) {
  liveHub().refresh();
  return jobPage(pageDb, pageSource, ref);
}

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_page_reads", nodes: 1, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
  const submitted = await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, gpusPerPod: 1 }));
  await operator.waitFor("2 ranks running", () => operator.live(submitted)?.ranksRunning === 2, 90_000);
  // Both ranks stepping before the crash: a crash before a rank's first step records no progress at
  // detection, and then no resumedAt is ever written (nothing waits for the training to come back).
  await operator.waitFor("2 ranks stepping", () => steppingRanks(operator.live(submitted)) === 2, 90_000);
  // One recovered crash, so the page has a restart row to show; settled once the ranks step again (the
  // row's resumedAt), else a tick read before that and one after differ.
  operator.backend.plantTrainerFault(ref, { kind: "crash", rank: 1 });
  await operator.waitFor(
    "the crash to be recovered and the ranks stepping again",
    async () =>
      (await jobPage(db, source, ref)).timeline.some(
        (entry) => entry.outcome === "recovered" && entry.resumedAt !== null,
      ),
    90_000,
  );
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("one tick of the job page", () => {
  it("builds the timeline from the rows in the operator's answer, without a restart-row query", async () => {
    const counting = countingDb(db);
    const counted = countingSource(source);
    const ticks = [];
    for (let tick = 0; tick < 5; tick += 1) ticks.push(await freshPage(counting.db, counted.source));
    expect(counted.calls.job).toBe(5);
    expect(counting.calls.restartRows).toBe(0);
    // The rows are this run's, as the database has them.
    const uid = (await operator.backend.getJob(ref))?.uid;
    const stored = await listRestartEvents(db, { namespace: ref.namespace, jobName: ref.name, jobUid: uid });
    expect(stored).toHaveLength(1);
    for (const page of ticks) {
      expect(page.timeline.map((entry) => [entry.id, entry.action, entry.outcome])).toEqual([
        [stored[0]?.id, "PLR", "recovered"],
      ]);
      expect(page.restarts).toEqual({ plr: 1, podReplacement: 0, jlr: 0 });
    }
  });

  it("reads the rows from the database once per page for a source whose answer carries none", async () => {
    const counting = countingDb(db);
    const counted = countingSource(source, { withoutRows: true });
    const withRows = await freshPage(db, source);
    for (let tick = 1; tick <= 3; tick += 1) {
      const page = await freshPage(counting.db, counted.source);
      expect(counting.calls.restartRows).toBe(tick);
      // The same timeline either way (the counting wrapper really sees the query it counts).
      expect(page.timeline).toEqual(withRows.timeline);
    }
  });

  it("is shared by every viewer within its 200 ms through the live hub's cache, which a refresh drops", async () => {
    const counted = countingSource(source);
    liveHub().refresh();
    const viewers = await Promise.all([1, 2, 3, 4].map(() => jobPage(db, counted.source, ref)));
    expect(viewers.every((page) => page === viewers[0])).toBe(true);
    expect(await jobPage(db, counted.source, ref)).toBe(viewers[0]);
    expect(counted.calls.job).toBe(1);
    // A cache of the page's own would survive this; the hub's one cache does not.
    liveHub().refresh();
    expect(await jobPage(db, counted.source, ref)).not.toBe(viewers[0]);
    expect(counted.calls.job).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await jobPage(db, counted.source, ref);
    expect(counted.calls.job).toBe(3);
  });
});
