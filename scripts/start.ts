/**
 * `npm start`: everything a newcomer needs, in order. Generate the Prisma client and build the console
 * when missing or stale, start PostgreSQL (embedded unless DATABASE_URL), migrate, seed an empty
 * database (demo users only in the one-machine demo; production gets the first admin from
 * REBOUND_ADMIN_* or a setup link), start the console on PORT and print its URL. Ctrl-C stops
 * everything cleanly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { consoleNodeOptions } from "./lib/console-heap";
import { startDemo } from "./lib/demo";
import { buildDemoTrainer } from "./lib/demo-trainer-build";
import { buildConsoleIfNeeded } from "./lib/next-build";
import { killLeftoverPods, startOperator } from "./lib/operator-process";
import { generatePrismaClient } from "./lib/prisma-generate";
import { stopChild, waitForHttp } from "./lib/processes";

const ROOT = path.resolve(import.meta.dirname, "..");
const log = (line: string) => console.log(`[rebound] ${line}`);

async function loadEnv() {
  const { InvalidEnvError } = await import("@/lib/env-schema");
  const { adminCredentials } = await import("./lib/admin-credentials");
  try {
    const { env } = await import("@/env");
    const admin = await adminCredentials(env);
    // Read once, here: the console, the operator and their pods inherit this process's environment.
    delete process.env.REBOUND_ADMIN_PASSWORD;
    return { env, admin };
  } catch (error) {
    if (error instanceof InvalidEnvError) {
      console.error(`rebound: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

/** `--dev` runs `next dev` (hot reload) instead of building and serving the production build. */
const DEV = process.argv.includes("--dev");

function startConsole(opts: {
  port: number;
  hostname: string;
  databaseUrl: string;
  operatorUrl: string | undefined;
}): ChildProcess {
  return spawn(
    path.join(ROOT, "node_modules/.bin/next"),
    [DEV ? "dev" : "start", "--port", String(opts.port), "--hostname", opts.hostname],
    {
      stdio: "inherit",
      env: {
        ...process.env,
        DATABASE_URL: opts.databaseUrl,
        ...(opts.operatorUrl ? { REBOUND_OPERATOR_URL: opts.operatorUrl } : {}),
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_ENV: DEV ? "development" : "production",
        // The production server's heap cap (scripts/lib/console-heap.ts); `next dev` needs more and gets none.
        ...(DEV ? {} : { NODE_OPTIONS: consoleNodeOptions(process.env.NODE_OPTIONS) }),
      },
    },
  );
}

async function main() {
  const { env, admin } = await loadEnv();
  const started = Date.now();
  if (await generatePrismaClient()) log("generated the Prisma client");
  if (!DEV) await buildConsoleIfNeeded(log);
  await buildDemoTrainer();

  const { bootstrapFromEnv, prepareDatabase } = await import("./lib/database");
  const database = await prepareDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(ROOT, env.REBOUND_DATA_DIR),
    seed: bootstrapFromEnv(env, admin),
    log,
  });

  const dataDir = path.resolve(ROOT, env.REBOUND_DATA_DIR);
  // On Kubernetes the operator runs in the cluster (deploy/); the console reads the cluster itself.
  const operator =
    env.REBOUND_CLUSTER === "local"
      ? await startOperator({ databaseUrl: database.url, port: env.OPERATOR_PORT, dataDir }).catch(
          async (error: unknown) => {
            await database.embedded?.stop();
            throw error;
          },
        )
      : null;
  log(
    operator
      ? `operator (local back end) on ${operator.url}`
      : "console only: reading the Kubernetes cluster from REBOUND_KUBECONFIG / KUBECONFIG / in-cluster",
  );
  const consoleProcess = startConsole({
    port: env.PORT,
    hostname: env.HOSTNAME,
    databaseUrl: database.url,
    operatorUrl: operator?.url ?? env.REBOUND_OPERATOR_URL,
  });
  let stopDemo: (() => void) | null = null;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log("stopping…");
    stopDemo?.();
    await Promise.all([stopChild(consoleProcess), operator ? stopChild(operator.child) : undefined]);
    const leftovers = await killLeftoverPods(dataDir);
    if (leftovers > 0) log(`killed ${leftovers} local pod(s) the operator left behind`);
    await database.embedded?.stop();
    log("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  const children: Record<string, ChildProcess> = operator
    ? { console: consoleProcess, operator: operator.child }
    : { console: consoleProcess };
  for (const [name, child] of Object.entries(children)) {
    child.on("exit", (code) => {
      if (stopping) return;
      console.error(`rebound: the ${name} exited unexpectedly (${code})`);
      void shutdown(1);
    });
  }

  await waitForHttp({
    url: `http://127.0.0.1:${env.PORT}/api/healthz`,
    child: consoleProcess,
    timeoutMs: 60_000,
  });
  if (operator) {
    stopDemo = await startDemo({
      operator,
      choice: env.REBOUND_DEMO,
      nodeEnv: env.NODE_ENV,
      faultIntervalSeconds: env.REBOUND_DEMO_FAULT_INTERVAL_SECONDS,
      log,
    });
  }
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s: http://localhost:${env.PORT}`);
}

main().catch((error: unknown) => {
  console.error(`rebound: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
