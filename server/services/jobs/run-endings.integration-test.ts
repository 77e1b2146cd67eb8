import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { jobPage } from "./queries";

/**
 * Issue 36 item 5: a run ends when its job ends (Succeeded, Failed, or deleted while it ran), with the end
 * time and a reason a user can read in Past runs; a finished job's page shows its pods completed, not
 * Missing with 0 of N ranks healthy. Real operator, real agents, real Postgres, the console's tRPC API.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;

const caller = async () => (await stack.callerFor("engineer@rebound.local")).caller;

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_run_endings", nodes: 2, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const phaseOf = (ref: JobRef) => operator.live(ref)?.phase;

async function uidOf(ref: JobRef): Promise<string> {
  const uid = (await operator.backend.getJob(ref))?.uid;
  if (!uid) throw new Error(`no job ${ref.name}`);
  return uid;
}

async function runOf(ref: JobRef, uid: string) {
  const runs = await (await caller()).jobs.runs(ref);
  return runs.find((run) => run.uid === uid);
}

describe("a run's end", () => {
  it("is written when the job succeeds, and its page shows its pods completed and its ranks finished", async () => {
    const ref = await operator.submit(
      demoJobYaml({ name: "it-run-succeeds", nodes: 2, ranks: 1, gpusPerPod: 1, steps: 15, stepMs: 50 }),
    );
    await operator.waitFor("the job to succeed", () => phaseOf(ref) === "Succeeded", 120_000);
    const uid = await uidOf(ref);
    await operator.waitFor("its run to end", async () => (await runOf(ref, uid)) !== undefined, 10_000);
    expect(await operator.backend.getJob(ref)).not.toBeNull(); // ended, not deleted
    const run = await runOf(ref, uid);
    expect(run).toMatchObject({
      phase: "Succeeded",
      outcome: "Succeeded",
      summary: "Succeeded",
      restarts: 0,
    });
    expect(run?.reason).toBe("All ranks finished after 0 restarts");
    expect(run?.endedAt).toBeGreaterThan(run?.createdAt ?? Infinity);
    const page = await jobPage(db, source, ref);
    expect(page.topology.pods.map((pod) => pod.phase)).toEqual(["Completed", "Completed"]);
    expect(page.topology.ranks.map((rank) => rank.health)).toEqual(["finished", "finished"]);
  }, 180_000);

  it("is written when the job fails, with the failure", async () => {
    const ref = await operator.submit(
      demoJobYaml({ name: "it-run-fails", nodes: 1, ranks: 2, gpusPerPod: 1 }).replace(
        "jobMaxRetryCount: 100",
        "jobMaxRetryCount: 0",
      ),
    );
    await operator.waitFor("2 ranks running", () => operator.live(ref)?.ranksRunning === 2, 90_000);
    operator.backend.plantTrainerFault(ref, { kind: "crash", rank: 1 });
    await operator.waitFor("the job to fail", () => phaseOf(ref) === "Failed", 60_000);
    const uid = await uidOf(ref);
    await operator.waitFor("its run to end", async () => (await runOf(ref, uid)) !== undefined, 10_000);
    const run = await runOf(ref, uid);
    expect(run).toMatchObject({ phase: "Failed", outcome: "Failed" });
    expect(run?.summary).toMatch(/^Failed: jobMaxRetryCount: jobMaxRetryCount \(0\) exceeded/);
    const page = await jobPage(db, source, ref);
    expect(page.topology.pods.map((pod) => pod.phase)).toEqual(["Stopped"]);
    expect(page.topology.ranks.map((rank) => rank.health)).toEqual(["finished", "faulted"]);
  }, 180_000);

  it("says a job deleted while running was deleted then, after how many restarts", async () => {
    const ref = await operator.submit(
      demoJobYaml({ name: "it-run-deleted", nodes: 1, ranks: 2, gpusPerPod: 1 }),
    );
    await operator.waitFor("2 ranks running", () => operator.live(ref)?.ranksRunning === 2, 90_000);
    const uid = await uidOf(ref);
    operator.backend.plantTrainerFault(ref, { kind: "crash", rank: 1 });
    await operator.waitFor(
      "the crash to be recovered",
      async () => (await jobPage(db, source, ref)).timeline.some((entry) => entry.outcome === "recovered"),
      90_000,
    );
    expect(await runOf(ref, uid)).toBeUndefined(); // running: not a past run
    await operator.backend.requestDeletion(ref);
    await operator.waitFor(
      "the job to be gone",
      async () => (await operator.backend.getJob(ref)) === null,
      60_000,
    );
    const run = await runOf(ref, uid);
    expect(run).toMatchObject({
      phase: "Deleted",
      outcome: "Deleted",
      summary: "Deleted while Running after 1 restart",
      restarts: 1,
    });
    const past = await (await caller()).jobs.pastRun({ job: ref, uid });
    expect(past.summary).toBe("Deleted while Running after 1 restart");
  }, 180_000);
});
