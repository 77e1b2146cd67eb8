import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";

/**
 * The operator under measurement: the shared local-operator harness with server/operator/main.ts's
 * defaults (agent poll as given, agent timeout 3 s, /stop timeout 10 s, 30 s pod start-up grace).
 */
export type BenchOperator = LocalOperator;

export function startBenchOperator(opts: {
  databaseUrl: string;
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
}): Promise<BenchOperator> {
  return startLocalOperator({
    databaseUrl: opts.databaseUrl,
    nodes: opts.nodes,
    gpusPerNode: opts.gpusPerNode,
    config: { pollMs: opts.pollMs },
    service: "bench-operator",
  });
}
