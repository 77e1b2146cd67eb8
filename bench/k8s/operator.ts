import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import { findFreePort } from "@/server/db/embedded";
import { type ProcWatch, watchProc } from "./proc";

/**
 * The operator under measurement, as its own process (`node --import tsx server/operator/main.ts`, the
 * kubernetes back end, the operator's own token), so its CPU time and memory can be read from /proc.
 * Its stdout and stderr go to a log file in the run's temp dir.
 */
export type OperatorProcess = {
  pid: number;
  url: string;
  /** A bearer token for its API (the operator's own user's: TokenReview + SubjectAccessReview admit it). */
  token: string;
  proc: ProcWatch;
  logTail(lines: number): Promise<string>;
  stop(): Promise<void>;
};

const ROOT = path.resolve(import.meta.dirname, "../..");
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

export async function startOperatorProcess(opts: {
  kubeconfigPath: string;
  /** The token of the kubeconfig's user, sent to the operator's API. */
  token: string;
  databaseUrl: string;
  pollMs: number | null;
  nodeArgs: string[];
  logFile: string;
  verbose: boolean;
}): Promise<OperatorProcess> {
  const port = await findFreePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REBOUND_CLUSTER: "kubernetes",
    REBOUND_KUBECONFIG: opts.kubeconfigPath,
    DATABASE_URL: opts.databaseUrl,
    OPERATOR_HOST: "127.0.0.1",
    OPERATOR_PORT: String(port),
  };
  delete env.REBOUND_AGENT_POLL_MS;
  if (opts.pollMs !== null) env.REBOUND_AGENT_POLL_MS = String(opts.pollMs);
  const child = spawn(
    process.execPath,
    [...opts.nodeArgs, "--import", import.meta.resolve("tsx"), "server/operator/main.ts"],
    {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const log = createWriteStream(opts.logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  if (opts.verbose) child.stderr?.pipe(process.stderr);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    await exited(child);
    clearTimeout(timer);
    process.off("exit", killOnExit);
  };
  const logTail = async (lines: number) =>
    (await readFile(opts.logFile, "utf8").catch(() => "")).split("\n").slice(-lines).join("\n");
  try {
    const healthy = async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true;
    const outcome = await waitUntil(
      "the operator's /healthz",
      async () => (child.exitCode !== null ? "exited" : (await healthy()) && "ready"),
      READY_TIMEOUT_MS,
    );
    if (outcome === "exited") throw new Error(`the operator exited (${child.exitCode})`);
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\noperator log:\n${await logTail(30)}`);
  }
  return { pid: child.pid ?? -1, url, token: opts.token, proc: watchProc(child.pid ?? -1), logTail, stop };
}

/** The operator's own counters, from its /metrics: reconciles (count, seconds) and failures. */
export type OperatorCounters = {
  reconciles: number;
  reconcileSeconds: number;
  errors: number;
  pollErrors: number;
};

function sumSeries(text: string, name: string): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      total += Number(line.split(" ").at(-1)) || 0;
  }
  return total;
}

export async function scrapeOperator(url: string): Promise<OperatorCounters | null> {
  const response = await fetch(`${url}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  const text = await response.text();
  return {
    reconciles: sumSeries(text, "rebound_operator_reconcile_duration_seconds_count"),
    reconcileSeconds: sumSeries(text, "rebound_operator_reconcile_duration_seconds_sum"),
    errors: sumSeries(text, "rebound_operator_reconcile_errors_total"),
    pollErrors: sumSeries(text, "rebound_operator_agent_poll_errors_total"),
  };
}
