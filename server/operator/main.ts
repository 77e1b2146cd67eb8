/**
 * The Rebound operator: one process that watches jobs, pods and nodes through a ClusterBackend, polls each
 * pod's agent, detects faults and carries out the recovery decision. Serves /metrics, /healthz and the
 * live-state API on OPERATOR_PORT (8081). SIGTERM/SIGINT: stop taking work, drain, stop local pods, exit.
 */
import { createServer } from "node:http";
import path from "node:path";
import { InvalidEnvError } from "@/lib/env-schema";
import { createLocalBackend } from "@/server/cluster/local/backend";
import { createDb } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { handleRequest } from "./api/routes";
import { createController } from "./controller";
import { createOperatorDeps } from "./reconcilers/deps";

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

async function main() {
  const env = await loadEnv();
  const log = createLogger({ service: "rebound-operator" });
  if (env.REBOUND_CLUSTER !== "local") {
    console.error("rebound-operator: REBOUND_CLUSTER=kubernetes is not available yet; use local");
    process.exit(2);
  }
  const db = createDb(env.DATABASE_URL);
  const backend = await createLocalBackend({
    db,
    dataDir: path.resolve(ROOT, env.REBOUND_DATA_DIR),
    repoRoot: ROOT,
    nodeCount: env.REBOUND_LOCAL_NODES,
    gpusPerNode: env.REBOUND_LOCAL_GPUS_PER_NODE,
    nodeRebootMs: env.REBOUND_LOCAL_NODE_REBOOT_SECONDS * 1000,
  });
  const deps = createOperatorDeps({
    backend,
    db,
    log,
    config: { pollMs: env.REBOUND_AGENT_POLL_MS, agentTimeoutMs: env.REBOUND_AGENT_TIMEOUT_MS },
  });
  let ready = false;
  const server = createServer((req, res) => void handleRequest({ req, res, deps, healthy: () => ready }));
  await new Promise<void>((resolve) => server.listen(env.OPERATOR_PORT, env.OPERATOR_HOST, resolve));
  await backend.start();
  const controller = createController(deps, { workers: env.REBOUND_WORKERS, resyncMs: 30_000 });
  await controller.start();
  ready = true;
  log.info("operator ready", {
    url: `http://${env.OPERATOR_HOST}:${env.OPERATOR_PORT}`,
    backend: backend.kind,
  });

  let stopping = false;
  // Local pods are this process's to stop: kill them first, then drain (a reconcile may be waiting on an
  // agent), bounded, so a stop never leaves agent or worker processes behind.
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    ready = false;
    backend.pods.stopAll();
    const drained = Promise.all([controller.stop(), backend.stop()]);
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 5000))]);
    backend.pods.stopAll();
    server.close();
    await db.$disconnect().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(
    `rebound-operator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
