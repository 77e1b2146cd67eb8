import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import { consoleNodeOptions } from "@/scripts/lib/console-heap";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import { findFreePort } from "@/server/http/free-port";

/** The console as `npm start` runs it (`next start`, production build), reading the bench's operator. */
export type ConsoleProcess = {
  url: string;
  pid: number;
  stop(): Promise<void>;
  /** Rejects when the console exits before stop(), with its exit status and its last lines (a heap limit, a crash). */
  exited: Promise<never>;
  /** The console's peak resident memory so far (VmHWM), MB. */
  peakRssMb(): number;
};

/** The last lines a process printed, kept to say why it died. */
function tailOf(stream: NodeJS.ReadableStream | null, lines: string[], keep = 12) {
  stream?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) lines.push(line.slice(0, 300));
    lines.splice(0, Math.max(0, lines.length - keep));
  });
}

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
  const last: string[] = [];
  tailOf(child.stdout, last);
  tailOf(child.stderr, last);
  const url = `http://127.0.0.1:${port}`;
  let stopping = false;
  const stop = async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  const exited = new Promise<never>((_, reject) => {
    child.once("exit", (code, signal) => {
      if (stopping) return;
      const fatal = last.find((line) => /FATAL|heap out of memory/i.test(line));
      reject(
        new Error(
          `the console exited (${signal ?? `code ${code}`}) while measured: ${fatal ?? last.slice(-3).join(" | ")} (its log: ${opts.logFile})`,
        ),
      );
    });
  });
  // Nothing may be waiting on it yet: an exit is reported by whoever races it, not as an unhandled rejection.
  exited.catch(() => {});
  const peakRssMb = () => {
    const status = readProcStatus(child.pid);
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return Math.round(kb / 1024);
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
  return { url, pid: child.pid ?? 0, stop, exited, peakRssMb };
}

function readProcStatus(pid: number | undefined): string {
  try {
    return pid === undefined ? "" : readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "";
  }
}
