import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb } from "@/server/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { type BenchOperator, startBenchOperator } from "./operator";

/**
 * What the benchmark runs against: a fresh embedded PostgreSQL in a temp dir (migrated and seeded, since
 * jobs live in team namespaces) and a real in-process operator with the local back end. `close()` is
 * safe to call at any point of a failed start, and more than once: every call waits for the one clean-up.
 */
export type BenchEnvironment = { operator: BenchOperator; close(): Promise<void> };

async function bounded(work: Promise<void> | undefined, limit: { ms: number; what: string }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${limit.what} took over ${limit.ms} ms`)), limit.ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function openEnvironment(opts: {
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
}): Promise<BenchEnvironment> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-bench-"));
  let database: EmbeddedDatabase | null = null;
  let operator: BenchOperator | null = null;
  let closing: Promise<void> | null = null;
  const stopAll = async () => {
    try {
      await bounded(operator?.stop(), { ms: 30_000, what: "stopping the operator and its pods" });
    } finally {
      // A server that already stopped (Ctrl-C reaches it too) never reports it: bounded.
      await bounded(database?.stop(), { ms: 15_000, what: "stopping PostgreSQL" }).catch((error: unknown) =>
        process.stderr.write(`${String(error)}\n`),
      );
      await rm(dir, { recursive: true, force: true });
    }
  };
  // Every caller (the end of the run, a failure, an interruption) waits for the same clean-up.
  const close = () => {
    closing ??= stopAll();
    return closing;
  };
  try {
    database = await startEmbeddedPostgres({ dataDir: dir });
    await migrate(database.url);
    const db = createDb(database.url);
    await seedIfEmpty(db);
    await db.$disconnect();
    operator = await startBenchOperator({
      databaseUrl: database.url,
      nodes: opts.nodes,
      gpusPerNode: opts.gpusPerNode,
      pollMs: opts.pollMs,
    });
    return { operator, close };
  } catch (error) {
    await close();
    throw error;
  }
}
