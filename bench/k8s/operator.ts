import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { buildOperator } from "@/scripts/lib/operator-build";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import { findFreePort } from "@/server/http/free-port";
import { type ProcWatch, watchProc } from "./proc";

/**
 * The operator under measurement, as its own process (`node dist/operator/main.mjs`, the bundle deploy/
 * runs, built here; the kubernetes back end, the operator's own token), so its CPU time and memory can be
 * read from /proc.
 * Its stdout and stderr go to a log file in the run's temp dir.
 */
export type OperatorExit = { code: number | null; signal: string | null; at: number };

export type OperatorProcess = {
  pid: number;
  url: string;
  /** A bearer token for its API (the operator's own user's: TokenReview + SubjectAccessReview admit it). */
  token: string;
  proc: ProcWatch;
  /** Its log file (stdout and stderr, JSON lines and whatever else it printed). */
  logFile: string;
  /** Settles when the process has exited and its last output is in the log file, whoever stopped it. */
  exited: Promise<OperatorExit>;
  /** Whether the exit, if any, was this bench's stop() (not a crash). */
  stopping(): boolean;
  logTail(lines: number): Promise<string>;
  stop(): Promise<void>;
};

/** "exit code 134", "signal SIGKILL". */
export const describeExit = (exit: OperatorExit) =>
  exit.signal !== null ? `signal ${exit.signal}` : `exit code ${exit.code}`;

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
  /** More environment for the operator (PROMETHEUS_URL for --node-signal dcgm). */
  env?: Record<string, string>;
}): Promise<OperatorProcess> {
  const port = await findFreePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REBOUND_CLUSTER: "kubernetes",
    REBOUND_KUBECONFIG: opts.kubeconfigPath,
    DATABASE_URL: opts.databaseUrl,
    OPERATOR_HOST: "127.0.0.1",
    OPERATOR_PORT: String(port),
    ...opts.env,
  };
  delete env.REBOUND_AGENT_POLL_MS;
  if (opts.pollMs !== null) env.REBOUND_AGENT_POLL_MS = String(opts.pollMs);
  const bundle = await buildOperator();
  const child = spawn(process.execPath, [...opts.nodeArgs, bundle], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    // A session of its own, so a CPU share of its own, as a pod's cgroup gives it (see startChild, ./agents.ts).
    detached: true,
  });
  // Both streams into one file, which is ended once both are closed (piping with the default `end` would
  // end it with the first, losing the other's last lines: a heap-out-of-memory report is on stderr).
  const log = createWriteStream(opts.logFile);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  if (opts.verbose) child.stderr?.pipe(process.stderr);
  const exitedPromise = new Promise<OperatorExit>((resolve) => {
    child.once("close", (code, signal) => {
      const exit = { code, signal, at: Date.now() };
      log.end(() => resolve(exit));
    });
  });
  let stopRequested = false;
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    stopRequested = true;
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
  return {
    pid: child.pid ?? -1,
    url,
    token: opts.token,
    proc: watchProc(child.pid ?? -1),
    logFile: opts.logFile,
    exited: exitedPromise,
    stopping: () => stopRequested,
    logTail,
    stop,
  };
}

/**
 * Runs `work` while watching the operator: if the operator exits first (a crash, the heap cap, a kill), the
 * result is that failure at once, with its exit code or signal, instead of whatever `work` would have run
 * into minutes later (a wait timing out on a job that no longer moves).
 */
export async function whileOperatorRuns<T>(operator: OperatorProcess, work: Promise<T>): Promise<T> {
  let settled = false;
  const died = new Promise<never>((_, reject) => {
    void operator.exited.then((exit) => {
      if (!settled && !operator.stopping())
        reject(new Error(`the operator exited (${describeExit(exit)}) during the run`));
    });
  });
  try {
    return await Promise.race([work, died]);
  } finally {
    settled = true;
  }
}

/**
 * The operator's own counters, from its /metrics: reconciles (count, seconds), failures, and how it hears
 * from agents: /status polls, pushed status lines, heartbeats and silences (NaN where the operator does not
 * export the series: one that only polls has no push counters).
 */
export type OperatorCounters = {
  reconciles: number;
  reconcileSeconds: number;
  errors: number;
  pollErrors: number;
  polls: number;
  pushLines: number;
  heartbeats: number;
  silences: number;
  /** rebound_operator_restart_stage_seconds, every restart type together: seconds and count by stage. */
  stages: Record<RestartStage, { seconds: number; count: number }>;
};

export const RESTART_STAGES = ["replacing", "stopping", "starting"] as const;
export type RestartStage = (typeof RESTART_STAGES)[number];

/** The sum of a family's series that carry `label="value"`; 0 when none does. */
function sumLabelled(text: string, name: string, label: string): number {
  let total = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(`${name}{`) && line.includes(label)) total += Number(line.split(" ").at(-1)) || 0;
  return total;
}

/** The sum of a family's series; NaN when the family is not exported at all. */
export function sumSeries(text: string, name: string): number {
  let total = 0;
  let found = false;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      found = true;
      total += Number(line.split(" ").at(-1)) || 0;
    }
  }
  return found ? total : Number.NaN;
}

export function parseCounters(text: string): OperatorCounters {
  const zeroIfAbsent = (value: number) => (Number.isNaN(value) ? 0 : value);
  return {
    reconciles: zeroIfAbsent(sumSeries(text, "rebound_operator_reconcile_duration_seconds_count")),
    reconcileSeconds: zeroIfAbsent(sumSeries(text, "rebound_operator_reconcile_duration_seconds_sum")),
    errors: zeroIfAbsent(sumSeries(text, "rebound_operator_reconcile_errors_total")),
    pollErrors: zeroIfAbsent(sumSeries(text, "rebound_operator_agent_poll_errors_total")),
    polls: sumSeries(text, "rebound_operator_agent_polls_total"),
    pushLines: sumSeries(text, "rebound_operator_agent_push_lines_total"),
    heartbeats: sumSeries(text, "rebound_operator_agent_heartbeats_total"),
    silences: sumSeries(text, "rebound_operator_agent_silences_total"),
    stages: Object.fromEntries(
      RESTART_STAGES.map((stage) => [
        stage,
        {
          seconds: sumLabelled(text, "rebound_operator_restart_stage_seconds_sum", `stage="${stage}"`),
          count: sumLabelled(text, "rebound_operator_restart_stage_seconds_count", `stage="${stage}"`),
        },
      ]),
    ) as OperatorCounters["stages"],
  };
}

export async function scrapeOperator(url: string): Promise<OperatorCounters | null> {
  const response = await fetch(`${url}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  return parseCounters(await response.text());
}
