import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { stopChild } from "@/scripts/lib/processes";
import { operatorTokenPath } from "@/server/cluster/local-token";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { findFreePort } from "@/server/http/free-port";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * The local back end's API credential, end to end: the real operator process (as `npm start` runs it)
 * makes <data dir>/operator-token (0600) at its first start and keeps it across restarts; every route but
 * /metrics and /healthz answers 401 without it or with another token, and changes nothing; the CLI reads
 * the file; each change is audited with the caller's identity.
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "it-auth-local";
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let dataDir: string;
let port: number;
let operator: { child: ChildProcess; url: string; token: string } | null = null;

const start = async (metricsPort?: number) => {
  operator = await startOperator({ databaseUrl: database.url, port, dataDir, metricsPort });
  return operator;
};
const stop = async () => {
  if (operator) await stopChild(operator.child);
  operator = null;
};
const current = () => {
  if (!operator) throw new Error("the operator is not running");
  return operator;
};

function call(route: string, init: RequestInit & { token?: string | null } = {}) {
  const { token = current().token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  // The body's type, as the CLI and the console send it (anything else is refused with 415).
  if (rest.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", route === "/api/v1/jobs" ? "application/yaml" : "application/json");
  return fetch(`${current().url}${route}`, { ...rest, headers });
}

beforeAll(async () => {
  database = await createTestDatabase("it_auth_local");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-auth-"));
  port = await findFreePort();
  await start();
}, 120_000);

afterAll(async () => {
  await stop();
  if (dataDir) await killLeftoverPods(dataDir);
  await db?.$disconnect();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

const job = `/api/v1/jobs/${NAMESPACE}/${JOB}`;
/** Every route but /metrics and /healthz, with a body that would be accepted with the right token. */
const guarded: Array<{ method: string; route: string; body?: string }> = [
  { method: "GET", route: "/api/v1/jobs" },
  { method: "POST", route: "/api/v1/jobs", body: demoJobYaml({ name: JOB, nodes: 1, ranks: 2 }) },
  { method: "GET", route: job },
  { method: "DELETE", route: job },
  { method: "POST", route: `${job}/faults`, body: JSON.stringify({ kind: "slow", rank: 0 }) },
  { method: "POST", route: `${job}/actions`, body: JSON.stringify({ action: "suspend", by: "x@y" }) },
  { method: "GET", route: `${job}/logs?pod=${JOB}-workers-0` },
  { method: "GET", route: `${job}/rank-output?pod=${JOB}-workers-0&localRank=0` },
  { method: "GET", route: "/api/v1/nodes" },
  { method: "GET", route: "/api/v1/unknown" },
];

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), ...args], {
      cwd: ROOT,
      env: childEnv({ REBOUND_OPERATOR_TOKEN: "", REBOUND_OPERATOR_URL: current().url, ...env }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the local operator token", () => {
  it("is made at the first start: 32 random bytes, base64url, mode 0600", async () => {
    const file = operatorTokenPath(dataDir);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const token = (await readFile(file, "utf8")).trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(token).toBe(current().token);
  });

  it("answers /healthz and /metrics without a credential", async () => {
    expect((await call("/healthz", { token: null })).status).toBe(200);
    expect((await call("/metrics", { token: null })).status).toBe(200);
  });

  it.each(guarded)("refuses $method $route without a token or with a wrong one", async (route) => {
    for (const token of [null, "not-the-token", `${current().token}x`]) {
      const response = await call(route.route, { method: route.method, body: route.body, token });
      expect(response.status, `${route.method} ${route.route} with ${token}`).toBe(401);
      const body = (await response.json()) as { message: string };
      expect(body.message).toMatch(
        token === null ? /authorization required.*operator-token/ : /not accepted/,
      );
    }
  });

  it("left nothing changed by the refused calls: no job, no audit row", async () => {
    const list = (await (await call("/api/v1/jobs")).json()) as { jobs: unknown[] };
    expect(list.jobs).toEqual([]);
    expect((await call(job)).status).toBe(404);
    expect(await db.auditLog.count({ where: { action: { startsWith: "operator." } } })).toBe(0);
  });

  it("is the same token after a restart, and the old one still works", async () => {
    const before = current().token;
    await stop();
    const metricsPort = await findFreePort();
    const after = (await start(metricsPort)).token;
    expect(after).toBe(before);
    expect((await call("/api/v1/jobs")).status).toBe(200);
    // OPERATOR_METRICS_PORT: /metrics and /healthz there, and nothing else, whatever the token.
    const metrics = `http://127.0.0.1:${metricsPort}`;
    expect((await fetch(`${metrics}/metrics`)).status).toBe(200);
    expect((await fetch(`${metrics}/healthz`)).status).toBe(200);
    const headers = { authorization: `Bearer ${after}` };
    expect((await fetch(`${metrics}/api/v1/jobs`, { headers })).status).toBe(401);
  }, 120_000);
});

describe("calls with the token", () => {
  it("the CLI reads the token from the data dir: submit and jobs", async () => {
    const file = path.join(dataDir, "job.yaml");
    await writeFile(file, demoJobYaml({ name: JOB, nodes: 1, ranks: 2, gpusPerPod: 2 }));
    const env = { REBOUND_DATA_DIR: dataDir };
    const submitted = await cli(["submit", file], env);
    expect(submitted.stderr).toBe("");
    expect(submitted.stdout).toContain(`submitted ${NAMESPACE}/${JOB}`);
    const jobs = await cli(["jobs"], env);
    expect(jobs.code).toBe(0);
    const wrong = await cli(["jobs", "--token", "wrong"], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/not accepted/);
  });

  it("audits submit, fault, action and delete with the caller's identity", async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const detail = (await (await call(job)).json()) as { live: { pods: unknown[] } | null };
      if (detail.live && detail.live.pods.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const faulted = await call(`${job}/faults`, {
      method: "POST",
      body: JSON.stringify({ kind: "slow", rank: 0, by: "engineer@rebound.local" }),
    });
    expect(faulted.status, await faulted.clone().text()).toBe(202);
    const suspended = await call(`${job}/actions`, {
      method: "POST",
      body: JSON.stringify({ action: "suspend", by: "engineer@rebound.local" }),
    });
    expect(suspended.status).toBe(202);
    const deleted = await cli(["delete", JOB, "-n", NAMESPACE], { REBOUND_DATA_DIR: dataDir });
    expect(deleted.code, deleted.stderr).toBe(0);

    const rows = await db.auditLog.findMany({
      where: { target: `${NAMESPACE}/${JOB}`, action: { startsWith: "operator." } },
      orderBy: { createdAt: "asc" },
    });
    expect(rows.map((row) => row.action)).toEqual([
      "operator.job.submit",
      "operator.job.fault",
      "operator.job.suspend",
      "operator.job.delete",
    ]);
    for (const row of rows) expect(row.details).toMatchObject({ caller: "local-token", via: "local-token" });
    expect(rows[1]?.details).toMatchObject({ kind: "slow", rank: 0, by: "engineer@rebound.local" });
    expect(rows[2]?.details).toMatchObject({ by: "engineer@rebound.local" });
  }, 90_000);
});
