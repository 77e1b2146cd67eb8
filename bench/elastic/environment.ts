import type { Db } from "@/server/db/client";
import { GPU } from "@/server/domain/governance/types";
import { type BenchEnvironment, openLocalEnvironment } from "../lib/local-environment";

export type { BenchEnvironment } from "../lib/local-environment";

/**
 * The elastic benchmark's seed: two teams and their GPU quotas (team A runs the elastic job, team B the
 * other job; each lends its idle GPUs and borrows the other's, as task governance's LendAndBorrow) and two
 * priority classes.
 */
export const TEAM_A = "hyperpod-ns-elastic-a";
export const TEAM_B = "hyperpod-ns-elastic-b";

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

/** The elastic benchmark's environment (bench/lib/local-environment.ts), seeded as the caller asks. */
export function openBenchEnvironment(opts: {
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
  seed: (db: Db) => Promise<void>;
  governance: boolean;
  /** Agents push their state (the operator's default); false: every agent polled, as before pushes. */
  agentPush?: boolean;
}): Promise<BenchEnvironment> {
  return openLocalEnvironment({ name: "rebound-bench-elastic-", ...opts });
}
