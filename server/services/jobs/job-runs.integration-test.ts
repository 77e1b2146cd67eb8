import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobRunsDir } from "@/server/cluster/local/pod-dirs";
import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { jobPage } from "./queries";

/**
 * A job deleted and resubmitted under the same name starts clean (issue 17 item 1): no old restarts, no old
 * events, an empty timeline, a fresh pod log; the old run stays reachable as a past run (jobs.runs,
 * jobs.pastRun) with its restart. Real operator, real agents, real Postgres, the console's tRPC API.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-resubmitted" };
const POD = `${ref.name}-workers-0`;

/** The engineer of LLM Research, signed in, as a tRPC caller. */
const caller = async () => (await stack.callerFor("engineer@rebound.local")).caller;

async function runUntilRunning(job: JobRef): Promise<string> {
  const submitted = await operator.submit(demoJobYaml({ name: job.name, nodes: 1, ranks: 2, gpusPerPod: 1 }));
  await operator.waitFor("2 ranks running", () => operator.live(submitted)?.ranksRunning === 2, 90_000);
  const uid = (await operator.backend.getJob(job))?.uid;
  if (!uid) throw new Error("no uid");
  return uid;
}

async function deleteJob(job: JobRef): Promise<void> {
  await operator.backend.requestDeletion(job);
  await operator.waitFor(
    "the job to be gone",
    async () => (await operator.backend.getJob(job)) === null,
    60_000,
  );
}

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_job_runs", nodes: 1, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("a job resubmitted under the same name", () => {
  it("starts clean, and its predecessor is a past run with its own timeline", async () => {
    const oldUid = await runUntilRunning(ref);
    operator.backend.plantTrainerFault(ref, { kind: "crash", rank: 1 });
    await operator.waitFor(
      "the crash to be recovered",
      async () => (await jobPage(db, source, ref)).timeline.some((entry) => entry.outcome === "recovered"),
      90_000,
    );
    const oldLog = await operator.backend.podLogs(ref, POD, 100_000);
    const oldEvents = await operator.backend.listEvents(ref);
    expect(oldEvents.length).toBeGreaterThan(1);
    await deleteJob(ref);

    const newUid = await runUntilRunning(ref);
    expect(newUid).not.toBe(oldUid);
    const page = await jobPage(db, source, ref);
    expect(page.timeline).toEqual([]);
    expect(page.restartCount).toBe(0);
    const row = (await (await caller()).jobs.list()).find((candidate) => candidate.name === ref.name);
    expect(row?.restarts).toEqual({ plr: 0, podReplacement: 0, jlr: 0 });
    // The old run's restart is still on record, under its own uid.
    expect(await listRestartEvents(db, { ...ref, jobName: ref.name, jobUid: oldUid })).toHaveLength(1);
    const newEvents = await operator.backend.listEvents(ref);
    const createdAt = (await operator.backend.getJob(ref))?.createdAt.getTime() ?? 0;
    expect(newEvents.length).toBeGreaterThan(0);
    expect(newEvents.every((event) => event.at >= createdAt)).toBe(true);
    expect(newEvents.filter((event) => event.type === "Warning")).toEqual([]);
    // The new pod's log is its own file: none of the old run's output (the injected crash) is in it.
    expect(oldLog.length).toBeGreaterThan(0);
    const newLog = await operator.backend.podLogs(ref, POD, 100_000);
    expect(newLog.length).toBeGreaterThan(0);
    expect(newLog.startsWith(oldLog.slice(0, Math.min(oldLog.length, newLog.length)))).toBe(false);

    const api = await caller();
    const runs = await api.jobs.runs(ref);
    expect(runs.map((run) => run.uid)).toEqual([oldUid]);
    expect(runs[0]).toMatchObject({ restarts: 1 });
    const past = await api.jobs.pastRun({ job: ref, uid: oldUid });
    expect(past.timeline).toHaveLength(1);
    expect(past.timeline[0]).toMatchObject({ action: "PLR", outcome: "recovered" });
    expect(past.events.map((event) => event.reason)).toContain("Created");
    await expect(api.jobs.pastRun({ job: ref, uid: newUid })).rejects.toMatchObject({ code: "NOT_FOUND" });
  }, 300_000);

  it("leaves no pod log directory beyond the bound after every job is deleted", async () => {
    await deleteJob(ref);
    // Two runs of the name are past now, both within the bound (3 runs, 50 MB); a fourth and fifth run
    // push the oldest out.
    for (let i = 0; i < 3; i += 1) {
      await runUntilRunning(ref);
      await deleteJob(ref);
    }
    const runs = jobRunsDir(path.join(operator.dataDir, "local", "pods"), {
      namespace: ref.namespace,
      job: ref.name,
    });
    expect(readdirSync(runs)).toHaveLength(3);
    for (const uid of readdirSync(runs)) {
      expect(existsSync(path.join(runs, uid, POD, "agent.log"))).toBe(true);
      expect(existsSync(path.join(runs, uid, POD, "home"))).toBe(false);
    }
    expect(existsSync(path.join(operator.dataDir, "local", "jobs", ref.namespace, ref.name))).toBe(false);
  }, 400_000);
});
