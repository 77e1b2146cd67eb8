import { seedIfEmpty } from "@/server/db/seed";
import { type BenchEnvironment, openLocalEnvironment } from "../lib/local-environment";

export type { BenchEnvironment } from "../lib/local-environment";

/**
 * What the recovery benchmark runs against (bench/lib/local-environment.ts): the demo seed (jobs live in
 * team namespaces), the operator as main.ts runs it, with the agent poll as given. Task governance's
 * admission is left out, as bench:goodput leaves it: the benchmark's 64-GPU jobs are beyond the demo
 * team's quota (16 guaranteed + 50 % borrowing), and admission plays no part in recovery.
 */
export function openEnvironment(opts: {
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
}): Promise<BenchEnvironment> {
  const seed = async (db: Parameters<typeof seedIfEmpty>[0]) => {
    await seedIfEmpty(db);
  };
  return openLocalEnvironment({ name: "rebound-bench-", ...opts, seed, governance: false });
}
