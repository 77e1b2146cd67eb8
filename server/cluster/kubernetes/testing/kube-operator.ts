import type { KubeConfig } from "@kubernetes/client-node";
import { type JobRef, jobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { createLogger } from "@/server/log";
import type { NodeMetricsFeed } from "@/server/metrics/node-metrics";
import { type Controller, createController } from "@/server/operator/controller";
import type { LiveJob } from "@/server/operator/live-state";
import type { OperatorConfig, OperatorDeps } from "@/server/operator/reconcilers/deps";
import { createOperatorDeps } from "@/server/operator/wiring";
import { createKubernetesBackend, type KubernetesBackend, type NodeSignalSource } from "../backend";
import { type LeaderElection, startLeaderElection } from "../leader";

/**
 * A real operator on the kubernetes back end, in this process, for integration tests and bench:k8s — the
 * same wiring as server/operator/main.ts. With `leaderElection`, only the Lease holder runs its controller.
 * `kill()` drops it on the floor mid-whatever (no drain, no lease release), as a crash would.
 */
export type KubeOperator = {
  deps: OperatorDeps;
  backend: KubernetesBackend;
  controller: Controller;
  db: Db;
  election: LeaderElection | null;
  /** How many reconciles this replica ran. */
  reconciles(): Promise<number>;
  live(ref: JobRef): LiveJob | undefined;
  stop(): Promise<void>;
  kill(): Promise<void>;
};

export async function startKubeOperator(opts: {
  kubeConfig: KubeConfig;
  databaseUrl: string;
  name?: string;
  config?: Partial<OperatorConfig>;
  leaderElection?: { namespace: string; leaseDurationSeconds: number };
  informers?: { watchTimeoutSeconds?: number; stallMs?: number };
  /** The node-signal table, or a source of it that changes (default: the shipped one). */
  nodeSignals?: NodeSignalTable | NodeSignalSource;
  /** Per-node metric facts (server/metrics/node-metrics.ts), e.g. the DCGM exporter's through Prometheus. */
  nodeMetrics?: NodeMetricsFeed;
  quiet?: boolean;
}): Promise<KubeOperator> {
  const name = opts.name ?? "operator-under-test";
  const base = createLogger({ service: name });
  const log = opts.quiet ? { ...base, info: () => undefined } : base;
  const db = createDb(opts.databaseUrl);
  const backend = await createKubernetesBackend({
    kubeConfig: opts.kubeConfig,
    log,
    mode: "operator",
    informers: opts.informers,
    nodeSignals: opts.nodeSignals,
    nodeMetrics: opts.nodeMetrics,
  });
  const deps = createOperatorDeps({ backend, db, log, config: opts.config });
  const controller = createController(deps, { workers: 4, resyncMs: 30_000 });
  await backend.start();
  let election: LeaderElection | null = null;
  if (opts.leaderElection) {
    election = startLeaderElection({
      kubeConfig: opts.kubeConfig,
      namespace: opts.leaderElection.namespace,
      name: "rebound-operator",
      identity: name,
      leaseDurationSeconds: opts.leaderElection.leaseDurationSeconds,
      log,
      onStarted: () => void controller.start(),
      onLost: () => void controller.stop(),
    });
  } else {
    await controller.start();
  }
  const close = async (graceful: boolean) => {
    await election?.stop({ release: graceful });
    await controller.stop();
    await backend.stop();
    await db.$disconnect();
  };
  return {
    deps,
    backend,
    controller,
    db,
    election,
    reconciles: async () => {
      const { values } = await deps.metrics.reconcileSeconds.get();
      return values.find((sample) => sample.metricName?.endsWith("_count"))?.value ?? 0;
    },
    live: (ref) => deps.live.get(jobKey(ref)),
    stop: () => close(true),
    kill: () => close(false),
  };
}
