import "server-only";
import { env } from "@/env";
import { createDb, type Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { createLogger } from "@/server/log";
import { createEmbeddedSource } from "@/server/metrics/embedded";
import { createPrometheusMetricsSource } from "@/server/metrics/prometheus";
import type { MetricsSource } from "@/server/metrics/series";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { createUnavailableSource } from "@/server/services/jobs/gateway/unavailable";
import { createLiveHub, type LiveHub } from "@/server/services/live/hub";
import { ensureNotifier } from "@/server/services/notifications/notifier";

/**
 * The console process, wired in one place: its database, the cluster it reads, its metrics source and its
 * live hub. Each is made on first use and shared by every request (the Next server reuses modules across
 * requests; the database and hub survive hot reloads on globalThis). The operator's counterpart is
 * server/operator/wiring.ts.
 */
const processWide = globalThis as unknown as { reboundDb?: Db; reboundLiveHub?: LiveHub };

/** The console's Prisma client. */
export function getDb(): Db {
  if (processWide.reboundDb) return processWide.reboundDb;
  if (!env.DATABASE_URL) {
    throw new AppError(
      "UNAVAILABLE",
      "DATABASE_URL is not set: start the console with `npm start` (it runs an embedded PostgreSQL) or set DATABASE_URL",
    );
  }
  processWide.reboundDb = createDb(env.DATABASE_URL);
  // Team notifications are sent from the console process, polling what the operator wrote to Postgres.
  ensureNotifier({
    db: processWide.reboundDb,
    log: createLogger({ service: "rebound-console", component: "notifications" }),
  });
  return processWide.reboundDb;
}

/** Server push for every live view: one shared loop per data source (server/services/live/hub.ts). */
export function liveHub(): LiveHub {
  processWide.reboundLiveHub ??= createLiveHub();
  return processWide.reboundLiveHub;
}

let clusterSource: Promise<ClusterSource> | undefined;

/**
 * The cluster the console reads: the operator's live-state API when REBOUND_OPERATOR_URL is set (npm start
 * sets it; on a cluster, the operator's Service), else the cluster itself in console-only mode
 * (REBOUND_CLUSTER=kubernetes), else a source that answers every call with why there is nothing to read.
 */
export function getClusterSource(): Promise<ClusterSource> {
  clusterSource ??= (async () => {
    if (env.REBOUND_OPERATOR_URL)
      return createOperatorSource({
        baseUrl: env.REBOUND_OPERATOR_URL.replace(/\/$/, ""),
        mode: env.REBOUND_CLUSTER === "kubernetes" ? "kubernetes" : "local",
      });
    if (env.REBOUND_CLUSTER === "kubernetes") return consoleOnlySource();
    return createUnavailableSource();
  })().catch((error: unknown) => {
    clusterSource = undefined;
    throw error;
  });
  return clusterSource;
}

/** Console-only mode: the console watches the cluster itself (no operator API to ask). */
async function consoleOnlySource(): Promise<ClusterSource> {
  const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
  const { createKubernetesBackend } = await import("@/server/cluster/kubernetes/backend");
  const { createConsoleView, detectClusterMode } = await import("@/server/cluster/kubernetes/console-view");
  const { createConsoleOnlySource } = await import("@/server/services/jobs/gateway/console-only-gateway");
  const kubeConfig = loadKubeConfig(env.REBOUND_KUBECONFIG);
  const backend = await createKubernetesBackend({
    kubeConfig,
    log: createLogger({ service: "rebound-console", component: "kubernetes" }),
    mode: "console",
  });
  await backend.start();
  return createConsoleOnlySource(createConsoleView(backend, await detectClusterMode(kubeConfig)), backend);
}

let metricsSource: { key: string; source: MetricsSource } | undefined;
const embeddedOf = new WeakMap<ClusterSource, MetricsSource>();

/**
 * The console's metrics source: Prometheus when PROMETHEUS_URL is set, else the operator's embedded history,
 * read through `cluster` when given (a request's own cluster source), else through getClusterSource.
 */
export function getMetricsSource(cluster?: ClusterSource): MetricsSource {
  if (cluster && !env.PROMETHEUS_URL) {
    const known = embeddedOf.get(cluster);
    if (known) return known;
    const source = createEmbeddedSource(async () => cluster);
    embeddedOf.set(cluster, source);
    return source;
  }
  const key = env.PROMETHEUS_URL ?? "embedded";
  if (metricsSource?.key !== key) {
    metricsSource = {
      key,
      source: env.PROMETHEUS_URL
        ? createPrometheusMetricsSource({ url: env.PROMETHEUS_URL })
        : createEmbeddedSource(getClusterSource),
    };
  }
  return metricsSource.source;
}
