import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { createJobStore } from "@/server/cluster/local/job-store";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createSeededTestDatabase } from "@/test/database";

/**
 * The local back end hears of job changes made by another process (the console, a second store) from
 * Postgres's notices, with its table poll set to a minute so that only a notice can explain a quick answer:
 * a submission, a deletion mark and a row removed each arrive; a status write (the operator's own) sends
 * none; a dropped connection is heard again after the reconnect.
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let dataDir: string;
let backend: LocalBackend;
const seen: string[] = [];

async function heard(key: string, timeoutMs = 3000): Promise<number> {
  const started = performance.now();
  while (!seen.includes(key)) {
    if (performance.now() - started > timeoutMs) throw new Error(`no change heard for ${key}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  seen.splice(seen.indexOf(key), 1);
  return performance.now() - started;
}

beforeAll(async () => {
  database = await createSeededTestDatabase("job_changes");
  db = createDb(database.url);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-job-changes-"));
  backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: ROOT,
    nodeCount: 1,
    gpusPerNode: 8,
    nodeRebootMs: 0,
    jobPollMs: 60_000,
    databaseUrl: database.url,
  });
  backend.onChange((ref) => {
    if (ref) seen.push(`${ref.namespace}/${ref.name}`);
  });
  await backend.start();
  // Listening (or caught up by the poll that follows the first connect): a first change is heard.
  await createJobStore(db).submitYaml(
    demoJobYaml({ name: "warm-up", namespace: "default", nodes: 1, ranks: 1 }),
  );
  await heard("default/warm-up", 10_000);
}, 60_000);

afterAll(async () => {
  await backend?.stop();
  await db?.$disconnect();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("local job changes from Postgres's notices", () => {
  it("hears another process's submission, deletion mark and row removal, and not a status write", async () => {
    const other = createDb(database.url);
    const store = createJobStore(other);
    try {
      const result = await store.submitYaml(
        demoJobYaml({ name: "elsewhere", namespace: "default", nodes: 1, ranks: 1 }),
      );
      expect(result.ok).toBe(true);
      const ref: JobRef = { namespace: "default", name: "elsewhere" };
      expect(await heard("default/elsewhere")).toBeLessThan(3000);
      await store.updateStatus(ref, { rebound: { phase: "Running" } } as never);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).not.toContain("default/elsewhere");
      await store.requestDeletion(ref);
      await heard("default/elsewhere");
      await store.remove(ref);
      await heard("default/elsewhere");
    } finally {
      await other.$disconnect();
    }
  });

  it("hears changes again after its connection is cut", async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND datname = current_database()`,
    );
    await admin.end();
    const store = createJobStore(db);
    // Reconnects within its backoff (first retry after 0.5 s); changes made meanwhile are caught up by a poll.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await store.submitYaml(demoJobYaml({ name: "after-cut", namespace: "default", nodes: 1, ranks: 1 }));
    expect(await heard("default/after-cut", 5000)).toBeLessThan(5000);
  });
});
