import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { readOperatorToken } from "@/server/cluster/local-token";
import { buildOperator } from "./operator-build";
import { waitForHttp } from "./processes";

/**
 * Starts the operator (local back end; its bundle, built here as deploy/ runs it) and records its URL for the `rebound` CLI. `token` is the API's
 * credential, which the operator made in <data dir>/operator-token (the CLI and the console read it there).
 */
export async function startOperator(opts: {
  databaseUrl: string;
  port: number;
  dataDir: string;
  /** Serve /metrics and /healthz alone on this port too (OPERATOR_METRICS_PORT; as deploy/ does). */
  metricsPort?: number;
  /** Append the operator's output to this file instead of this terminal (benchmarks). */
  logFile?: string;
}): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, [await buildOperator()], {
    stdio: opts.logFile ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      OPERATOR_PORT: String(opts.port),
      OPERATOR_HOST: "127.0.0.1",
      REBOUND_DATA_DIR: opts.dataDir,
      REBOUND_CLUSTER: "local",
      ...(opts.metricsPort ? { OPERATOR_METRICS_PORT: String(opts.metricsPort) } : {}),
    },
  });
  if (opts.logFile) {
    const log = createWriteStream(opts.logFile, { flags: "a" });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  const url = `http://127.0.0.1:${opts.port}`;
  await waitForHttp({ url: `${url}/healthz`, child, timeoutMs: 60_000 });
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(path.join(opts.dataDir, "operator.json"), JSON.stringify({ url }));
  const token = readOperatorToken(opts.dataDir);
  if (!token) throw new Error(`the operator made no token in ${opts.dataDir}`);
  return { child, url, token };
}

/**
 * Safety net after the operator has exited: any local pod it left behind (it was killed, say) is killed
 * with its workers. Only processes that are still a rebound-agent are touched (pids get reused).
 */
export async function killLeftoverPods(dataDir: string): Promise<number> {
  const { loadPodRecords } = await import("@/server/cluster/local/pod-records");
  const { isAlive, killTree } = await import("@/server/cluster/local/process-tree");
  let killed = 0;
  for (const record of loadPodRecords(path.join(dataDir, "local/pods.json"))) {
    if (!isAlive(record.pid)) continue;
    const cmdline = await readFile(`/proc/${record.pid}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.includes("rebound-agent")) continue;
    killTree(record.pid, "SIGKILL");
    killed += 1;
  }
  return killed;
}
