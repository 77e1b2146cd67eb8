import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { consoleNodeOptions } from "@/scripts/lib/console-heap";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import { findFreePort } from "@/server/http/free-port";

/** The console as `npm start` runs it (`next start`, production build), reading the bench's operator. */
export type ConsoleProcess = { url: string; pid: number; stop(): Promise<void> };

const ROOT = path.resolve(import.meta.dirname, "../..");

export async function startConsoleProcess(opts: {
  databaseUrl: string;
  operatorUrl: string;
  /** The console sends it to the operator's API (REBOUND_OPERATOR_TOKEN). */
  operatorToken: string;
  logFile: string;
}): Promise<ConsoleProcess> {
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    path.join(ROOT, "node_modules/.bin/next"),
    ["start", "--port", String(port), "--hostname", "127.0.0.1"],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: opts.databaseUrl,
        REBOUND_OPERATOR_URL: opts.operatorUrl,
        REBOUND_OPERATOR_TOKEN: opts.operatorToken,
        REBOUND_CLUSTER: "kubernetes",
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        // As `npm start` runs it: the console's heap cap (scripts/lib/console-heap.ts).
        NODE_OPTIONS: consoleNodeOptions(process.env.BENCH_CONSOLE_NODE_OPTIONS),
      },
    },
  );
  const log = createWriteStream(opts.logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  try {
    await waitUntil(
      "the console to answer",
      async () => (await fetch(`${url}/api/healthz`).catch(() => null))?.ok,
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid ?? 0, stop };
}
