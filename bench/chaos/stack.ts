import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { startConsoleProcess } from "@/bench/console/console-process";
import { buildConsoleIfNeeded } from "@/scripts/lib/next-build";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { findFreePort } from "@/server/http/free-port";

/**
 * What the soak runs: the operator as its own process (as `npm start` runs it), which the soak stops
 * cleanly, kills with SIGKILL and starts again on the same data dir and port, and the built console reading
 * it. RSS is read from /proc.
 */
export type Stack = {
  operatorUrl(): string;
  token(): string;
  operatorPid(): number;
  consolePid(): number;
  /** Stops the operator (SIGTERM: a clean stop; SIGKILL: it dies alone) and starts a new one. */
  restartOperator(signal: "SIGTERM" | "SIGKILL"): Promise<void>;
  close(): Promise<void>;
};

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
}

/** Child pids by parent, from /proc. */
async function childrenByParent(): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  return children;
}

/**
 * RSS of a process and its descendants (the tsx wrapper and the Node process it starts), leaving out the
 * local pods the operator starts (agents and their ranks are not the operator's memory).
 */
export async function rssMb(pid: number): Promise<number> {
  const children = await childrenByParent();
  let kb = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() ?? 0;
    const cmdline = await readFile(`/proc/${next}/cmdline`, "utf8").catch(() => "");
    if (next !== pid && cmdline.includes("rebound-agent")) continue;
    kb += await rssKb(next);
    queue.push(...(children.get(next) ?? []));
  }
  return Math.round(kb / 1024);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startStack(opts: {
  databaseUrl: string;
  dataDir: string;
  consoleLog: string;
  operatorLog: string;
  log: (line: string) => void;
}): Promise<Stack> {
  opts.log("building the console if needed…");
  await buildConsoleIfNeeded(opts.log);
  const port = await findFreePort();
  const launch = () =>
    startOperator({ databaseUrl: opts.databaseUrl, port, dataDir: opts.dataDir, logFile: opts.operatorLog });
  let operator = await launch();
  const consoleProcess = await startConsoleProcess({
    databaseUrl: opts.databaseUrl,
    operatorUrl: operator.url,
    operatorToken: operator.token,
    logFile: opts.consoleLog,
  });
  return {
    operatorUrl: () => operator.url,
    token: () => operator.token,
    operatorPid: () => operator.child.pid ?? 0,
    consolePid: () => consoleProcess.pid,
    async restartOperator(signal) {
      operator.child.kill(signal);
      await exited(operator.child);
      operator = await launch();
    },
    async close() {
      await consoleProcess.stop();
      operator.child.kill("SIGTERM");
      await Promise.race([exited(operator.child), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      await killLeftoverPods(opts.dataDir);
    },
  };
}
