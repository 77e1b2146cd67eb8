import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/server/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";

/**
 * What the local benchmarks (bench:recovery, bench:elastic, bench:goodput) run against: a fresh embedded
 * PostgreSQL in a temp dir, migrated and seeded as the benchmark asks (jobs live in team namespaces), and a
 * real in-process operator with the local back end: the shared local-operator harness with
 * server/operator/main.ts's defaults (agent timeout 3 s, /stop timeout 10 s, 30 s pod start-up grace), the
 * agent poll as given, with or without task governance's admission and agents' pushes.
 * `close()` is safe at any point of a failed start, and more than once: every caller (the end of the run, a
 * failure, an interruption) waits for the same clean-up.
 */
export type BenchOperator = LocalOperator;
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

export async function openLocalEnvironment(opts: {
  /** The temp dir's prefix, e.g. "rebound-bench-elastic-". */
  name: string;
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
  seed: (db: Db) => Promise<void>;
  /** Task governance's admission (default: on, as the operator runs). */
  governance?: boolean;
  /** Agents push their state (the operator's default); false: every agent polled, as before pushes. */
  agentPush?: boolean;
}): Promise<BenchEnvironment> {
  const dir = await mkdtemp(path.join(tmpdir(), opts.name));
  let database: EmbeddedDatabase | null = null;
  let operator: BenchOperator | null = null;
  let closing: Promise<void> | null = null;
  const report = (error: unknown) => process.stderr.write(`${String(error)}\n`);
  const stopAll = async () => {
    try {
      await bounded(operator?.stop(), { ms: 30_000, what: "stopping the operator and its pods" }).catch(
        report,
      );
    } finally {
      // A server that already stopped (Ctrl-C reaches it too) never reports it: bounded.
      await bounded(database?.stop(), { ms: 15_000, what: "stopping PostgreSQL" }).catch(report);
      await rm(dir, { recursive: true, force: true });
    }
  };
  const close = () => {
    closing ??= stopAll();
    return closing;
  };
  try {
    database = await startEmbeddedPostgres({ dataDir: dir });
    await migrate(database.url);
    const db = createDb(database.url);
    await opts.seed(db);
    await db.$disconnect();
    operator = await startLocalOperator({
      databaseUrl: database.url,
      nodes: opts.nodes,
      gpusPerNode: opts.gpusPerNode,
      config: { pollMs: opts.pollMs, ...(opts.agentPush === undefined ? {} : { agentPush: opts.agentPush }) },
      ...(opts.governance === undefined ? {} : { governance: opts.governance }),
      service: "bench-operator",
    });
    return { operator, close };
  } catch (error) {
    await close();
    throw error;
  }
}
