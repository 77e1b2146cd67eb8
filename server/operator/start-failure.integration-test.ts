import { type ChildProcess, execFile } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { stopChild } from "@/scripts/lib/processes";
import { createDb } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { timelineTotals } from "@/server/domain/console/timeline";
import {
  type JobDetailResponse,
  jobDetailResponseSchema,
  jobListResponseSchema,
} from "@/server/domain/operator-api/contract";
import { findFreePort } from "@/server/http/free-port";
import { waitFor } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { timelineEntries } from "@/server/services/jobs/job-view";
import { completeFault, recordFault } from "@/server/store/restart-events/mutations";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 36 item 7 on the real operator process (local back end, real agents, real PostgreSQL): an agent
 * that exits at start (an unknown flag) is said at once, with its own words, in the job's reason and on
 * its restart timeline; the back-off between tries reads "BackOff" with the time to the next try (API and
 * CLI); the crash loop's failure says its reason once; the timeline's records count every failure.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const NAMESPACE = "hyperpod-ns-llm-research";
const NAME = "it-exits-at-start";
const execFileAsync = promisify(execFile);

let database: { url: string; drop: () => Promise<void> };
let dataDir: string;
let operator: { child: ChildProcess; url: string; token: string } | null = null;

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

async function detail(): Promise<JobDetailResponse | null> {
  const response = await call(`/api/v1/jobs/${NAMESPACE}/${NAME}`);
  if (response.status === 404) return null;
  return jobDetailResponseSchema.parse(await response.json());
}

async function listed() {
  const response = await call("/api/v1/jobs");
  return jobListResponseSchema.parse(await response.json()).jobs.find((job) => job.name === NAME);
}

const cli = (...args: string[]) =>
  execFileAsync(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), ...args], {
    cwd: ROOT,
    env: childEnv({ REBOUND_OPERATOR_URL: current().url, REBOUND_OPERATOR_TOKEN: current().token }),
  });

beforeAll(async () => {
  database = await createTestDatabase("it_start_failure");
  await migrate(database.url);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-start-failure-"));
  await chmod(dataDir, 0o711);
  operator = await startOperator({ databaseUrl: database.url, port: await findFreePort(), dataDir });
}, 180_000);

afterAll(async () => {
  if (operator) await stopChild(operator.child);
  if (dataDir) await killLeftoverPods(dataDir);
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe("an agent that exits at start (issue 36)", () => {
  it("is said at once, backs off visibly and fails with its reason once, every failure on the timeline", async () => {
    // Limit 2: the first failure is tried again at once, the second after a 10 s back-off, the third fails.
    const yaml = demoJobYaml({
      name: NAME,
      nodes: 1,
      ranks: 1,
      gpusPerPod: 1,
      annotations: { "rebound.dev/max-restarts-without-progress": "2" },
    }).replace('"--server-port"', '"--no-such-flag", "--server-port"');
    const submittedAt = Date.now();
    const submitted = await call("/api/v1/jobs", { method: "POST", body: yaml });
    expect(submitted.status, await submitted.clone().text()).toBe(201);

    // Within seconds (not 2.5 minutes of "Admitted"): the agent's own words and a timeline entry.
    const first = await waitFor(
      "the start failure said",
      async () => {
        const found = await detail();
        const row = found?.restarts.find((each) => each.faultReason === "StartFailure");
        return row && found?.live?.reason?.includes("unknown flag") ? { found, row } : null;
      },
      30_000,
    );
    expect(Date.now() - submittedAt).toBeLessThan(30_000);
    expect(first.found.live?.reason).toMatch(/exited before the job ran/);

    // The second failure waits 10 s: a state of its own, with the time to the next try.
    const backingOff = await waitFor(
      "the back-off shown",
      async () => {
        const job = await listed();
        return job?.status === "BackOff" && job.backOffUntil ? job : null;
      },
      30_000,
    );
    expect(backingOff.backOffUntil ?? 0).toBeGreaterThan(Date.now());
    const { stdout: table } = await cli("jobs");
    const line = table.split("\n").find((each) => each.includes(NAME)) ?? "";
    expect(line).toMatch(/\tBackOff \(next try in \d+ s\)\t/);
    // One line per job, the agent's multi-line output included: every line has the table's 6 cells.
    for (const each of table.trim().split("\n")) expect(each.split("\t")).toHaveLength(6);
    const { stdout: whole } = await cli("job", NAME, "-n", NAMESPACE);
    expect(whole).toMatch(/Status: +BackOff \(next try in \d+ s\)/);
    expect(whole).toContain("unknown flag");

    const failed = await waitFor(
      "the crash loop failed",
      async () => {
        const found = await detail();
        return found?.live?.phase === "Failed" && found.restarts.some((row) => row.action === "FAIL")
          ? found
          : null;
      },
      90_000,
    );
    // Each pod created again is a restart: the CLI's RESTARTS and the console's records agree (2).
    expect(failed.live?.restartCount).toBe(2);
    // Said once: not "CrashLoop: CrashLoop: …".
    expect(failed.live?.reason).toMatch(/^CrashLoop: 2 restarts in a row without progress/);
    expect(failed.live?.reason).not.toMatch(/CrashLoop: CrashLoop/);
    // Three exits: the two tried again folded into one row (count 2, failed with the job), then the FAIL.
    const rows = failed.restarts.filter((row) => row.faultReason === "StartFailure");
    expect(rows.map((row) => [row.action, row.count ?? 1, row.outcome])).toEqual([
      ["POD_REPLACEMENT", 2, "failed"],
      ["FAIL", 1, "failed"],
    ]);
    // Each exit's event carries that attempt's lines only (the log file is shared by every attempt).
    const exits = failed.events.filter((event) => event.reason === "AgentExited");
    expect(exits.length).toBeGreaterThan(0);
    for (const exit of exits) expect(exit.message.match(/unknown flag/g)).toHaveLength(1);
  }, 180_000);
});

describe("a back-off's wait in Postgres (issue 36)", () => {
  it("is kept on the row and out of the console's MTTR", async () => {
    const db = createDb(database.url);
    try {
      const job = {
        jobUid: "7b0c6a2e-0000-4000-8000-000000000036",
        namespace: NAMESPACE,
        jobName: "it-wait",
      };
      const id = "7b0c6a2e-0000-4000-8000-000000000037";
      const faultAt = Date.parse("2026-12-07T00:00:00Z");
      await recordFault(db, {
        id,
        ...job,
        ranks: [0],
        pods: ["it-wait-workers-0"],
        node: null,
        reason: "WorkerCrash",
        faultAt: new Date(faultAt),
        detectedAt: new Date(faultAt + 100),
        action: "PLR",
        message: "crashed",
      });
      // Detected at +0.1 s, waited 10 s of back-off, agents started again at +10.9 s: 0.8 s of recovery.
      await completeFault(db, id, {
        outcome: "recovered",
        recoveredAt: new Date(faultAt + 10_900),
        message: "recovered",
        waitMs: 10_000,
      });
      const entries = timelineEntries(await listRestartEvents(db, job));
      expect(entries.map((entry) => [entry.waitMs, entry.recoveryMs])).toEqual([[10_000, 800]]);
      expect(timelineTotals(entries, { startedAt: faultAt - 1_000, now: faultAt + 20_000 })).toMatchObject({
        faults: 1,
        mttrMs: 900,
        waitMs: 10_000,
      });
    } finally {
      await db.$disconnect();
    }
  }, 60_000);
});
