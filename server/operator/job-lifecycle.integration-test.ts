import { type ChildProcess, execFile } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { stopChild } from "@/scripts/lib/processes";
import { loadPodRecords } from "@/server/cluster/local/pod-records";
import { isAlive } from "@/server/cluster/local/process-tree";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import {
  type JobDetailResponse,
  jobDetailResponseSchema,
  jobListResponseSchema,
} from "@/server/domain/operator-api/contract";
import { findFreePort } from "@/server/http/free-port";
import { waitFor } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 17 items 2, 3 and 6 end to end, on the real operator process (as `npm start` runs it, local back
 * end, real agents and workers, real PostgreSQL): a job that cannot start is listed with its cause; a
 * crash loop backs off and fails with its reason; clean stops of the operator cost the job nothing; an
 * operator killed with SIGKILL re-adopts its pods; a stalled (SIGSTOPped) agent is found within the
 * timeout and a poll.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const NAMESPACE = "hyperpod-ns-llm-research";
const execFileAsync = promisify(execFile);

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let dataDir: string;
let port: number;
let operator: { child: ChildProcess; url: string; token: string } | null = null;

const start = async () => {
  operator = await startOperator({ databaseUrl: database.url, port, dataDir });
  return operator;
};
const current = () => {
  if (!operator) throw new Error("the operator is not running");
  return operator;
};

async function call(route: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${current().token}`);
  if (init.body !== undefined) headers.set("content-type", "application/yaml");
  return fetch(`${current().url}${route}`, { ...init, headers });
}

async function submit(yaml: string): Promise<void> {
  const response = await call("/api/v1/jobs", { method: "POST", body: yaml });
  expect(response.status, await response.clone().text()).toBe(201);
}

async function detail(name: string): Promise<JobDetailResponse | null> {
  const response = await call(`/api/v1/jobs/${NAMESPACE}/${name}`);
  if (response.status === 404) return null;
  return jobDetailResponseSchema.parse(await response.json());
}

async function listed(name: string) {
  const response = await call("/api/v1/jobs");
  return jobListResponseSchema.parse(await response.json()).jobs.find((job) => job.name === name);
}

const conditions = (found: JobDetailResponse) =>
  (found.status as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> })
    ?.conditions ?? [];

async function waitPhase(name: string, phase: string, timeoutMs = 120_000) {
  return waitFor(
    `${name} ${phase}`,
    async () => {
      const found = await detail(name);
      if (found?.live?.phase !== phase) return null;
      // The status is read before the live view: a Failed job's condition may be one reconcile behind.
      const failed = conditions(found).some((c) => c.type === "Failed" && c.status === "True");
      return phase !== "Failed" || failed ? found : null;
    },
    timeoutMs,
  );
}

/** Pods the local back end still records as running (not stopped on purpose). */
const runningPods = () =>
  loadPodRecords(path.join(dataDir, "local/pods.json")).filter(
    (record) => !record.stoppedOnPurpose && record.phase === "Running",
  );

const agentPids = (name: string) =>
  runningPods()
    .filter((record) => record.job === name)
    .map((record) => record.pid);

const answers = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );

/**
 * SIGTERM, as Ctrl-C on `npm start` does; wait for the operator's own signs that it stopped: its port
 * closed and its pods recorded stopped.
 */
async function stopOperator(): Promise<void> {
  const { child, url } = current();
  await stopChild(child);
  operator = null;
  await waitFor("the operator stopped", async () => !(await answers(url)), 30_000);
  // Its port closes before it has recorded its pods stopped on purpose: wait for that too (a pod left
  // running still fails the test that stops it, after this bound).
  await waitFor("the operator's pods recorded stopped", async () => runningPods().length === 0, 30_000);
}

const healthyJob = (name: string) =>
  demoJobYaml({ name, nodes: 1, ranks: 1, gpusPerPod: 1, hangSeconds: 30 });

beforeAll(async () => {
  database = await createTestDatabase("it_job_lifecycle");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-lifecycle-"));
  // As a data dir made by `npm start` (0755): pods run as an unprivileged user pass through it.
  await chmod(dataDir, 0o711);
  port = await findFreePort();
  await start();
}, 180_000);

afterAll(async () => {
  if (operator) await stopChild(operator.child);
  if (dataDir) await killLeftoverPods(dataDir);
  await db?.$disconnect();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe("job lifecycle (issue 17)", () => {
  it("lists a job that cannot start, through the API and the CLI, with its cause in an event within 30 s", async () => {
    const name = "it-unstartable";
    const yaml = demoJobYaml({ name, nodes: 1, ranks: 1, gpusPerPod: 1 })
      .replace(/command: \[.*\]/, 'command: ["/bin/sh", "-c", "exec nonexistent-binary"]')
      .replace(/\n\s*args: \[.*\]/, "");
    const submittedAt = Date.now();
    await submit(yaml);
    const failed = await waitFor(
      "a Warning event with the cause",
      async () => {
        const found = await detail(name);
        return found?.events.some((event) => event.type === "Warning") ? found : null;
      },
      30_000,
    );
    expect(Date.now() - submittedAt).toBeLessThan(30_000);
    const warning = failed.events.find((event) => event.type === "Warning");
    expect(warning?.message).toMatch(/agent|rebound-agent|hyperpodrun/i);
    // The event is written before the status that carries the same reason: the list shows it once saved.
    const settled = await waitPhase(name, "Failed", 10_000);
    const job = await listed(name);
    expect(job?.phase).toBe("Failed");
    expect(conditions(settled).find((c) => c.type === "Failed")).toMatchObject({
      status: "True",
      reason: "PodCreationRefused",
    });
    const created = settled.events.filter((event) => event.reason === "Created");
    expect(created.map((event) => event.count ?? 1)).toEqual([1]);
    const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), "jobs"], {
      cwd: ROOT,
      env: childEnv({
        REBOUND_OPERATOR_URL: current().url,
        REBOUND_OPERATOR_TOKEN: current().token,
      }),
    });
    expect(stdout).toContain(name);
    expect(stdout).toContain("Failed");
  }, 90_000);

  it("backs a crash loop off and fails it with the reason: at most 6 restarts in 3 minutes", async () => {
    const name = "it-crash-loop";
    const script = path.join(dataDir, "exit-3.mjs");
    await writeFile(script, "process.exit(3);\n", { mode: 0o644 });
    const yaml = demoJobYaml({ name, nodes: 1, ranks: 1, gpusPerPod: 1 }).replace(
      /args: \[.*\]/,
      `args: [${JSON.stringify(script)}]`,
    );
    const submittedAt = Date.now();
    await submit(yaml);
    const failed = await waitPhase(name, "Failed", 240_000);
    const elapsed = Date.now() - submittedAt;
    expect(failed.live?.restartCount ?? 99).toBeLessThanOrEqual(6);
    expect(failed.restarts.length).toBeLessThanOrEqual(7);
    expect(conditions(failed).find((c) => c.type === "Failed")).toMatchObject({
      status: "True",
      reason: "CrashLoop",
    });
    const message = conditions(failed).find((c) => c.type === "Failed")?.message ?? "";
    expect(message).toContain("without progress");
    expect(message).toContain("exited with code 3");
    // 0 + 10 + 20 + 40 + 80 s of back-off: well within 3 minutes of starting work, never under 150 s.
    expect(elapsed).toBeGreaterThan(140_000);
  }, 300_000);

  it("three clean stops and starts of the operator leave no fault record and the retry budget untouched", async () => {
    const name = "it-stop-start";
    await submit(healthyJob(name));
    const before = await waitPhase(name, "Running");
    expect(before.live?.restartCount).toBe(0);
    for (let cycle = 1; cycle <= 3; cycle += 1) {
      await stopOperator();
      expect(agentPids(name)).toEqual([]);
      await start();
      const resumed = await waitPhase(name, "Running");
      const events = resumed.events.filter((event) => event.reason === "Resumed");
      expect(events.reduce((sum, event) => sum + (event.count ?? 1), 0)).toBe(cycle);
      expect(resumed.live?.restartCount).toBe(0);
      expect(resumed.restarts).toEqual([]);
    }
    const after = await detail(name);
    expect((after?.status as { restartCount?: number } | undefined)?.restartCount ?? 0).toBe(0);
    expect(after?.events.some((event) => event.reason === "Created")).toBe(true);
    await call(`/api/v1/jobs/${NAMESPACE}/${name}`, { method: "DELETE" });
  }, 400_000);

  it("an operator killed with SIGKILL loses no pod: the next one re-adopts the running agents", async () => {
    const name = "it-kill-9";
    await submit(healthyJob(name));
    await waitPhase(name, "Running");
    const pids = agentPids(name);
    expect(pids).toHaveLength(1);
    // The operator's own process (its bundle runs under node directly): its pods, below it, must survive.
    const child = current().child;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    operator = null;
    await waitFor("the old operator's port closed", async () => !(await answers(`http://127.0.0.1:${port}`)));
    expect(pids.every(isAlive)).toBe(true);
    await start();
    const running = await waitPhase(name, "Running");
    // A few polls later it is still the same process, with no fault and no restart.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(agentPids(name)).toEqual(pids);
    const after = await detail(name);
    expect(after?.live?.phase).toBe("Running");
    expect(running.restarts).toEqual([]);
    expect(after?.restarts).toEqual([]);
    expect(after?.live?.restartCount).toBe(0);
    await call(`/api/v1/jobs/${NAMESPACE}/${name}`, { method: "DELETE" });
  }, 240_000);

  it("declares a SIGSTOPped agent unreachable within the timeout and a poll (generous bound here)", async () => {
    const name = "it-stalled";
    await submit(healthyJob(name));
    await waitPhase(name, "Running");
    const [pid] = agentPids(name);
    if (pid === undefined) throw new Error("no agent process");
    const stoppedAt = Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      const found = await waitFor(
        "an AgentUnreachable restart",
        async () => (await detail(name))?.restarts.find((row) => row.faultReason === "AgentUnreachable"),
        60_000,
      );
      const detected = Date.parse(found.detectedAt) - stoppedAt;
      // 3 s timeout + 0.1 s poll; the bound leaves room for a loaded machine (bench:recovery has the figure).
      expect(detected).toBeLessThan(15_000);
      expect(Date.parse(found.faultAt)).toBeGreaterThanOrEqual(stoppedAt - 1000);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGCONT");
    }
    await call(`/api/v1/jobs/${NAMESPACE}/${name}`, { method: "DELETE" });
  }, 180_000);
});
