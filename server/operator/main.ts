/**
 * The Rebound operator: one process that watches jobs, pods and nodes through a ClusterBackend, polls each
 * pod's agent, detects faults and carries out the recovery decision. Serves /metrics, /healthz and the
 * live-state API on OPERATOR_PORT (8081). SIGTERM/SIGINT: stop taking work, drain, stop local pods (kept
 * as stopped on purpose: they resume at the next start), exit. Killed (SIGKILL), it leaves its pods
 * running; the next start re-adopts them.
 */
import { createServer } from "node:http";
import { hostname } from "node:os";
import path from "node:path";
import { InvalidEnvError } from "@/lib/env-schema";
import type { KubernetesBackend } from "@/server/cluster/kubernetes/backend";
import type { LeaderElection } from "@/server/cluster/kubernetes/leader";
import type { LocalBackend } from "@/server/cluster/local/backend";
import { ensureOperatorToken, operatorTokenPath } from "@/server/cluster/local-token";
import { createDb, type Db } from "@/server/db/client";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { createLogger, type Logger } from "@/server/log";
import { createAdmissionGate } from "./admission";
import { type ApiAuth, kubernetesAuth, localTokenAuth, NOBODY } from "./api/authorize";
import { handleRequest } from "./api/routes";
import { type Controller, createController } from "./controller";
import type { OperatorEnv } from "./env";
import { createOperatorDeps, operatorConfigFromEnv } from "./wiring";

const ROOT = path.resolve(import.meta.dirname, "../..");

async function loadEnv() {
  try {
    return (await import("./env")).operatorEnv;
  } catch (error) {
    if (error instanceof InvalidEnvError) {
      console.error(`rebound-operator: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

type Backend =
  | { kind: "local"; backend: LocalBackend; stopPods: () => void }
  | { kind: "kubernetes"; backend: KubernetesBackend; stopPods: () => void };

async function createBackend(env: OperatorEnv, log: Logger, db: Db): Promise<Backend> {
  if (env.REBOUND_CLUSTER === "kubernetes") {
    const { createKubernetesBackend } = await import("@/server/cluster/kubernetes/backend");
    const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
    const { detectClusterMode } = await import("@/server/cluster/kubernetes/console-view");
    const kubeConfig = loadKubeConfig(env.REBOUND_KUBECONFIG);
    // Two operators must never drive the same jobs: on AWS's CRD, only the console runs (console-only mode).
    const mode = await detectClusterMode(kubeConfig).catch((error: { code?: number }) => {
      if (error.code !== 404) throw error;
      console.error(
        "rebound-operator: the HyperPodPyTorchJob CRD is not installed; run `npx rebound install`",
      );
      process.exit(2);
    });
    if (mode === "console-only") {
      console.error(
        "rebound-operator: the HyperPodPyTorchJob CRD belongs to another operator (AWS's HyperPod training operator?); not starting. Run the console alone (deploy/console-only).",
      );
      process.exit(2);
    }
    // The node-signal table as cluster admins set it (console, Postgres) and the ConfigMap's rows over it.
    const { startOperatorNodeSignals } = await import("./node-signals");
    const nodeSignals = await startOperatorNodeSignals({
      db,
      kubeConfig,
      namespace: env.POD_NAMESPACE ?? "rebound-system",
      log,
    });
    const { loadAgentKey } = await import("@/server/cluster/agent-credential");
    if (!env.REBOUND_AGENT_KEY_FILE)
      log.warn(
        "no REBOUND_AGENT_KEY_FILE: agents ask for no credential (their NetworkPolicy alone guards them)",
      );
    const backend = await createKubernetesBackend({
      kubeConfig,
      log: log.child({ component: "kubernetes" }),
      mode: "operator",
      agentKey: env.REBOUND_AGENT_KEY_FILE ? loadAgentKey(env.REBOUND_AGENT_KEY_FILE) : null,
      nodeSignals,
      nodeMetrics: await createNodeMetrics(env, log, () => nodeSignals.current()),
    });
    return { kind: "kubernetes", backend, stopPods: () => undefined };
  }
  // Loaded only here, as the kubernetes back end is above: an operator on Kubernetes never loads the local
  // back end (its pod processes, the agent bundler, embedded PostgreSQL's helpers).
  const { createLocalBackend } = await import("@/server/cluster/local/backend");
  // The node-signal table as cluster admins set it in the console (Postgres; no ConfigMap here).
  const { startStoredNodeSignals } = await import("./node-signals");
  const nodeSignals = await startStoredNodeSignals({ db, log });
  const backend = await createLocalBackend({
    db,
    nodeSignals: () => nodeSignals.current(),
    dataDir: path.resolve(ROOT, env.REBOUND_DATA_DIR),
    repoRoot: ROOT,
    nodeCount: env.REBOUND_LOCAL_NODES,
    gpusPerNode: env.REBOUND_LOCAL_GPUS_PER_NODE,
    nodeRebootMs: env.REBOUND_LOCAL_NODE_REBOOT_SECONDS * 1000,
    databaseUrl: env.DATABASE_URL,
  });
  return { kind: "local", backend, stopPods: () => backend.pods.stopAll() };
}

/**
 * With PROMETHEUS_URL, the metrics the node-signal table reads (the DCGM exporter's), polled from
 * Prometheus; the names are taken from the table in force at each poll.
 */
async function createNodeMetrics(env: OperatorEnv, log: Logger, table: () => NodeSignalTable) {
  if (!env.PROMETHEUS_URL) return undefined;
  const { createPrometheusClient } = await import("@/server/metrics/prometheus-api");
  const { createNodeMetricsPoller } = await import("@/server/metrics/node-metrics");
  const { metricNamesOf } = await import("@/server/domain/node-health/default-signals");
  log.info("node metrics from Prometheus", { url: env.PROMETHEUS_URL, metrics: metricNamesOf(table()) });
  return createNodeMetricsPoller({
    client: createPrometheusClient({ url: env.PROMETHEUS_URL }),
    metrics: () => metricNamesOf(table()),
    intervalMs: env.REBOUND_NODE_METRICS_INTERVAL_MS,
    log: log.child({ component: "node-metrics" }),
  });
}

/**
 * Who may call the API: on Kubernetes, whoever the apiserver says (TokenReview, SubjectAccessReview); on
 * the local back end, the holder of <data dir>/operator-token (made here at the first start).
 */
async function createApiAuth(env: OperatorEnv): Promise<ApiAuth> {
  if (env.REBOUND_CLUSTER === "kubernetes") {
    const { createAccessReview } = await import("@/server/cluster/kubernetes/access-review");
    const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
    return kubernetesAuth(createAccessReview({ kubeConfig: loadKubeConfig(env.REBOUND_KUBECONFIG) }));
  }
  const dataDir = path.resolve(ROOT, env.REBOUND_DATA_DIR);
  return localTokenAuth({ token: ensureOperatorToken(dataDir), tokenFile: operatorTokenPath(dataDir) });
}

/** With leader election only the Lease holder runs the controller; the others keep their caches warm. */
async function startLeaderElection(
  env: OperatorEnv,
  log: Logger,
  controller: Controller,
  exit: (code: number) => void,
): Promise<LeaderElection> {
  const { startLeaderElection: start } = await import("@/server/cluster/kubernetes/leader");
  const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
  return start({
    kubeConfig: loadKubeConfig(env.REBOUND_KUBECONFIG),
    namespace: env.REBOUND_LEASE_NAMESPACE ?? env.POD_NAMESPACE ?? "rebound-system",
    name: env.REBOUND_LEASE_NAME,
    identity: env.POD_NAME ?? `${hostname()}-${process.pid}`,
    leaseDurationSeconds: env.REBOUND_LEASE_DURATION_SECONDS,
    log,
    onStarted: () => void controller.start(),
    // Whatever this replica was doing may now be done by the new leader: stop at once.
    onLost: () => exit(1),
  });
}

async function main() {
  const env = await loadEnv();
  const log = createLogger({ service: "rebound-operator" });
  const db = createDb(env.DATABASE_URL);
  const { backend, stopPods } = await createBackend(env, log, db);
  // Task governance: admission by team quota and priority (Rebound's own on the local back end).
  const kubeConfig =
    env.REBOUND_CLUSTER === "kubernetes"
      ? (await import("@/server/cluster/kubernetes/config")).loadKubeConfig(env.REBOUND_KUBECONFIG)
      : undefined;
  const admission = await createAdmissionGate({ kind: backend.kind, backend, db, log, kubeConfig });
  const deps = createOperatorDeps({
    backend,
    db,
    log,
    config: operatorConfigFromEnv(env, backend.kind),
    admission,
  });
  const auth = await createApiAuth(env);
  let ready = false;
  const server = createServer(
    (req, res) => void handleRequest({ req, res, deps, auth, healthy: () => ready }),
  );
  await new Promise<void>((resolve) => server.listen(env.OPERATOR_PORT, env.OPERATOR_HOST, resolve));
  const metricsServer = env.OPERATOR_METRICS_PORT
    ? createServer((req, res) => void handleRequest({ req, res, deps, auth: NOBODY, healthy: () => ready }))
    : null;
  await new Promise<void>((resolve) =>
    metricsServer ? metricsServer.listen(env.OPERATOR_METRICS_PORT, env.OPERATOR_HOST, resolve) : resolve(),
  );
  await backend.start();
  const controller = createController(deps, { workers: env.REBOUND_WORKERS, resyncMs: 30_000 });

  let stopping = false;
  let election: LeaderElection | null = null;
  // Local pods are this process's to stop. The controller stops taking work and drains first (bounded: a
  // reconcile may be waiting on an agent), so no reconcile sees the pods go and counts that as a fault;
  // then every pod is killed and recorded as stopped on purpose, to resume at the next start with no fault
  // and the retry budget untouched (server/cluster/local/pods.ts stopAll). A stop never leaves agent or
  // worker processes behind.
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    const within = (work: Promise<unknown>, ms: number) =>
      Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms))]);
    await within(controller.stop(), 5000);
    await within(admission?.dispose() ?? Promise.resolve(), 1000);
    stopPods();
    await within(Promise.all([backend.stop(), election?.stop()]), 5000);
    stopPods();
    server.close();
    metricsServer?.close();
    await db.$disconnect().catch(() => undefined);
    process.exit(code);
  };
  process.on("SIGTERM", () => void shutdown(0));
  process.on("SIGINT", () => void shutdown(0));

  if (env.REBOUND_CLUSTER === "kubernetes" && env.REBOUND_LEADER_ELECTION) {
    election = await startLeaderElection(env, log, controller, (code) => void shutdown(code));
  } else {
    await controller.start();
  }
  ready = true;
  log.info("operator ready", {
    url: `http://${env.OPERATOR_HOST}:${env.OPERATOR_PORT}`,
    backend: backend.kind,
    leaderElection: election !== null,
  });
}

main().catch((error: unknown) => {
  console.error(
    `rebound-operator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
