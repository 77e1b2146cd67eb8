import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/server/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { GPU } from "@/server/domain/governance/types";
import { startLocalOperator } from "@/server/operator/testing/local-operator";
import type { BenchOperator } from "../recovery/operator";

/**
 * What the benchmarks run against: a fresh embedded PostgreSQL in a temp dir, seeded, and a real in-process
 * operator with the local back end (server/operator/main.ts's defaults, the agent poll as given), with or
 * without task governance's admission. `close()` is safe at any point and more than once.
 * The elastic benchmark's seed: two teams and their GPU quotas (team A runs the elastic job, team B the
 * other job; each lends its idle GPUs and borrows the other's, as task governance's LendAndBorrow) and two
 * priority classes.
 */
export const TEAM_A = "hyperpod-ns-elastic-a";
export const TEAM_B = "hyperpod-ns-elastic-b";

export type BenchEnvironment = { operator: BenchOperator; close(): Promise<void> };

export async function seedTeams(db: Db, guaranteed: { a: number; b: number }): Promise<void> {
  await db.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
  await db.priorityClass.create({ data: { name: "training", weight: 50 } });
  await db.priorityClass.create({ data: { name: "inference", weight: 100 } });
  for (const [name, gpus] of [
    ["elastic-a", guaranteed.a],
    ["elastic-b", guaranteed.b],
  ] as const) {
    await db.team.create({
      data: {
        name,
        displayName: name,
        namespace: `hyperpod-ns-${name}`,
        quota: {
          create: {
            borrowStrategy: "LendAndBorrow",
            borrowLimitPercent: 300,
            resources: { create: [{ resource: GPU, guaranteed: gpus }] },
          },
        },
      },
    });
  }
}

async function bounded(work: Promise<void> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function openBenchEnvironment(opts: {
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
  seed: (db: Db) => Promise<void>;
  governance: boolean;
  /** Agents push their state (the operator's default); false: every agent polled, as before pushes. */
  agentPush?: boolean;
}): Promise<BenchEnvironment> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-bench-elastic-"));
  let database: EmbeddedDatabase | null = null;
  let operator: BenchOperator | null = null;
  let closing: Promise<void> | null = null;
  const stopAll = async () => {
    try {
      await bounded(operator?.stop(), 30_000);
    } finally {
      await bounded(database?.stop(), 15_000);
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
      governance: opts.governance,
      service: "bench-operator",
    });
    return { operator, close };
  } catch (error) {
    await close();
    throw error;
  }
}
