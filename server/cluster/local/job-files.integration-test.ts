import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEPT_ATTEMPTS } from "@/server/agent/attempt-retention";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { recordJobEvent } from "@/server/store/job-events/mutations";
import { listJobEvents } from "@/server/store/job-events/queries";
import { MAX_EVENTS_PER_RUN } from "@/server/store/job-events/retention";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createTestDatabase } from "@/test/database";
import { podDir } from "./pod-dirs";

/**
 * A local job's records outside the job row (issue 17 items 3 and 7): its events are in Postgres, collapsed
 * and bounded, and survive an operator restart; its agent's attempt directories stay bounded however often
 * it restarts. Real operator, real agents, real Postgres.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let operator: LocalOperator | undefined;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-job-files" };

beforeAll(async () => {
  database = await createTestDatabase("it_job_files");
  await migrate(database.url);
  db = createDb(database.url);
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

const event = (message: string, at: Date) => ({
  jobUid: "uid-bounded",
  namespace: ref.namespace,
  jobName: "bounded",
  type: "Warning" as const,
  reason: "WorkerCrash",
  message,
  at,
});

/** Every `attempt_<n>` directory under a directory. */
function attemptDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isDirectory() && /^attempt_\d+$/.test(entry.name))
    .map((entry) => entry.name);
}

describe("a job's events in Postgres", () => {
  it("collapses repeats into a count and keeps a run's rows bounded", async () => {
    const start = Date.now();
    for (let i = 0; i < 3; i += 1)
      await recordJobEvent(db, event("rank 1 exited with code 3", new Date(start + i)));
    const collapsed = await listJobEvents(db, "uid-bounded");
    expect(collapsed).toMatchObject([{ count: 3, firstAt: start, at: start + 2 }]);
    for (let i = 0; i < MAX_EVENTS_PER_RUN + 20; i += 1)
      await recordJobEvent(db, event(`distinct ${i}`, new Date(start + 10 + i)));
    const kept = await listJobEvents(db, "uid-bounded");
    expect(kept).toHaveLength(MAX_EVENTS_PER_RUN);
    expect(kept.at(-1)?.message).toBe(`distinct ${MAX_EVENTS_PER_RUN + 19}`);
    expect(kept.some((row) => row.message === "rank 1 exited with code 3")).toBe(false);
  });

  it("drops events older than 7 days on the next write", async () => {
    const at = new Date(Date.now() - 8 * 86_400_000);
    const { at: _at, ...old } = { ...event("long ago", at), jobUid: "uid-old" };
    await db.jobEvent.create({ data: { ...old, firstAt: at, lastAt: at } });
    expect(await listJobEvents(db, "uid-old")).toHaveLength(1);
    await recordJobEvent(db, { ...event("now", new Date()), jobUid: "uid-new" });
    expect(await listJobEvents(db, "uid-old")).toEqual([]);
  });
});

describe("a local job", () => {
  it("keeps its events across an operator restart, and its attempt directories bounded", async () => {
    operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 1 });
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
    await operator.waitFor("1 rank running", () => operator?.live(ref)?.ranksRunning === 1, 90_000);
    const before = await operator.backend.listEvents(ref);
    expect(before.map((e) => e.reason)).toContain("Created");
    const job = await operator.backend.getJob(ref);
    if (!job) throw new Error("job not stored");

    const pod = podDir(path.join(operator.dataDir, "local", "pods"), {
      namespace: ref.namespace,
      pod: `${ref.name}-workers-0`,
      run: { job: ref.name, uid: job.uid },
    });
    const restarts = KEPT_ATTEMPTS + 3;
    for (let i = 1; i <= restarts; i += 1) {
      // A manual in-place restart: every attempt is a new attempt directory of the same agent.
      operator.deps.requests.add(`${ref.namespace}/${ref.name}`, {
        kind: "restart-rank",
        rank: 0,
        by: "test",
      });
      await operator.waitFor(
        `restart ${i} to recover`,
        async () => {
          const rows = await listRestartEvents(db, { ...ref, jobName: ref.name, jobUid: job.uid });
          const recovered = rows.filter((row) => row.outcome === "recovered").length;
          // Its attempt directory too: the restart row can be written before the agent has made it.
          return (
            recovered >= i &&
            operator?.live(ref)?.ranksRunning === 1 &&
            attemptDirs(pod).includes(`attempt_${i}`)
          );
        },
        90_000,
      );
    }
    const attempts = attemptDirs(pod);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.length).toBeLessThanOrEqual(KEPT_ATTEMPTS);
    expect(attempts).toContain(`attempt_${restarts}`);

    const recorded = await operator.backend.listEvents(ref);
    await operator.stop();
    operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 1 });
    const after = await operator.backend.listEvents(ref);
    for (const earlier of recorded) expect(after).toContainEqual(earlier);
  }, 600_000);
});
