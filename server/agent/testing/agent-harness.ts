import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentStatus, agentStatusSchema } from "@/server/domain/agent-api/protocol";
import { agentProcessEnv, spawnEnv } from "../env";
import { isProcessAlive, signalGroupOnly } from "../process-group";

/**
 * Integration-test harness: runs the real agent (`node bin/rebound-agent.mjs …`) as a child process, talks
 * to it over HTTP and remembers every worker pid it reports, so `cleanupAgents()` can kill the agent and
 * every worker process group even when a test fails half-way.
 */

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const DEMO_TRAINER = path.join(REPO_ROOT, "examples/trainer/demo-trainer.ts");

export type Reply = { status: number; body: unknown; text: string };
export type Observed = { status: AgentStatus; at: number };

export type AgentHandle = {
  readonly port: number;
  readonly child: ChildProcess;
  readonly workerPids: Set<number>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  request(input: { method: "GET" | "POST"; path: string; body?: unknown; rawBody?: string }): Promise<Reply>;
  status(): Promise<AgentStatus>;
  /** Polls /status every `intervalMs` until `predicate` holds; `at` is when that answer arrived. */
  waitFor(
    predicate: (status: AgentStatus) => boolean,
    options?: { timeoutMs?: number; intervalMs?: number },
  ): Promise<Observed>;
};

const live = new Set<AgentHandle>();

function waitForPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start:\n${output()}`)), 30_000);
    const check = () => {
      const match = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output());
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(Number(match[1]));
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited with ${code} before listening:\n${output()}`));
    });
  });
}

function createHandle(input: {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: AgentHandle["exited"];
}) {
  const workerPids = new Set<number>();
  const base = `http://127.0.0.1:${input.port}`;
  const request: AgentHandle["request"] = async ({ method, path: route, body, rawBody }) => {
    const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const response = await fetch(`${base}${route}`, {
      method,
      body: payload,
      headers: { "content-type": "application/json" },
    });
    const text = await response.text();
    const isJson = response.headers.get("content-type")?.includes("json") ?? false;
    return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : undefined, text };
  };
  const status = async () => {
    const parsed = agentStatusSchema.parse((await request({ method: "GET", path: "/status" })).body);
    for (const rank of parsed.ranks ?? []) if (rank.pid !== null) workerPids.add(rank.pid);
    return parsed;
  };
  const waitFor: AgentHandle["waitFor"] = async (predicate, options = {}) => {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    let last: AgentStatus | null = null;
    while (Date.now() < deadline) {
      last = await status();
      if (predicate(last)) return { status: last, at: Date.now() };
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
    }
    throw new Error(`timed out waiting for the agent; last status: ${JSON.stringify(last)}`);
  };
  return { ...input, workerPids, request, status, waitFor };
}

/** `cwd` defaults to the repository root; the agent must also work from anywhere else. */
export async function startAgent(input: {
  args: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
}): Promise<AgentHandle> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/rebound-agent.mjs"), ...input.args], {
    cwd: input.cwd ?? REPO_ROOT,
    env: spawnEnv({ ...agentProcessEnv(), ...input.env }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const output = () => text;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const port = await waitForPort(child, output);
  const handle: AgentHandle = createHandle({ child, port, output, exited });
  live.add(handle);
  return handle;
}

/** SIGKILL to every agent started here and to every worker process group they reported. */
export async function cleanupAgents(): Promise<void> {
  for (const handle of live) {
    await handle.status().catch(() => undefined);
    for (const pid of handle.workerPids) signalGroupOnly(pid, "SIGKILL");
    if (handle.child.pid !== undefined && handle.child.exitCode === null)
      signalGroupOnly(handle.child.pid, "SIGKILL");
  }
  live.clear();
}

export function alivePids(pids: Iterable<number>): number[] {
  return [...pids].filter((pid) => isProcessAlive(pid));
}

/** Waits until none of `pids` is alive (zombies of the agent's children are reaped by the agent). */
export async function waitForExit(pids: Iterable<number>, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = alivePids(pids);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    alive = alivePids(alive);
  }
  return alive;
}

/** `<log-dir>/<runId>_<agentId>/attempt_<n>/<local rank>/<stream>.log` (one agent per log dir). */
export async function readRankLog(input: {
  logDir: string;
  attempt: number;
  localRank: number | string;
  stream: "stdout" | "stderr";
}): Promise<string> {
  const [runDir] = await readdir(input.logDir);
  if (runDir === undefined) throw new Error(`no run folder in ${input.logDir}`);
  const file = path.join(
    input.logDir,
    runDir,
    `attempt_${input.attempt}`,
    String(input.localRank),
    `${input.stream}.log`,
  );
  return readFile(file, "utf8");
}

export async function readEnvDump(dir: string, rank: number): Promise<Record<string, string>> {
  return JSON.parse(await readFile(path.join(dir, `env-${rank}.json`), "utf8")) as Record<string, string>;
}
