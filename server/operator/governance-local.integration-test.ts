import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { whyPending } from "@/server/domain/governance";
import { GPU } from "@/server/domain/governance/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createTestDatabase } from "@/test/database";

/**
 * Task governance on the local back end, end to end (issue 11): real PostgreSQL, the operator with its local
 * admission, real agents and demo-trainer workers. Team B borrows team A's idle GPUs; team A submits; B's
 * job is preempted gracefully (its ranks get SIGUSR1, save a checkpoint and exit; nothing is SIGKILLed
 * before the graceful timeout) and requeued; A's job runs; "why pending" of B's job says how many GPUs it
 * lacks and what holds them; when A's job finishes, B's is admitted again and resumes from its checkpoint.
 */

const GRACEFUL_SECONDS = 20;
const A: JobRef = { namespace: "hyperpod-ns-team-a", name: "a-reclaims" };
const B: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-borrows" };

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let op: LocalOperator;

/** Two teams of one cohort, 2 GPUs guaranteed each, each may borrow up to 100% more. */
async function seedTeams(): Promise<void> {
  await db.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
  await db.priorityClass.create({ data: { name: "training", weight: 70 } });
  for (const team of ["team-a", "team-b"]) {
    await db.team.create({
      data: {
        name: team,
        displayName: team,
        namespace: `hyperpod-ns-${team}`,
        quota: {
          create: {
            borrowStrategy: "LendAndBorrow",
            borrowLimitPercent: 100,
            resources: { create: [{ resource: GPU, guaranteed: 2 }] },
          },
        },
      },
    });
  }
}

const live = (ref: JobRef) => op.live(ref);

/** What each job looked like, printed when a wait times out (the machine is shared and loaded). */
function summary(ref: JobRef): string {
  const job = live(ref);
  if (!job) return `${ref.name}: not seen`;
  const pods = job.pods.map(
    (pod) =>
      `${pod.name}:${pod.phase}/${pod.agentState}/${pod.ranks.map((rank) => `${rank.state}@${rank.step}`).join("+")}`,
  );
  return `${ref.name}: ${job.phase} ${job.reason ?? ""} admission=${JSON.stringify(job.admission)} pods=${pods.join(" ")}`;
}

async function wait<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  try {
    return await op.waitFor(what, probe, timeoutMs);
  } catch (error) {
    const events = async (ref: JobRef) =>
      (await op.backend.listEvents(ref)).map((e) => `${e.reason}: ${e.message}`);
    throw new Error(
      `${String(error)}\n${summary(A)}\n${summary(B)}\nB events: ${(await events(B)).join(" | ")}\nA events: ${(await events(A)).join(" | ")}`,
    );
  }
}
const steps = (ref: JobRef) =>
  (live(ref)?.pods ?? []).flatMap((pod) =>
    pod.ranks.flatMap((rank) => (rank.step === null ? [] : [rank.step])),
  );
const checkpointFile = (ref: JobRef): string =>
  path.join(op.dataDir, "local", "jobs", ref.namespace, ref.name, "checkpoints", "checkpoint.json");
const checkpointOf = (ref: JobRef): number =>
  (JSON.parse(readFileSync(checkpointFile(ref), "utf8")) as { step: number }).step;

beforeAll(async () => {
  database = await createTestDatabase("governance_local");
  await migrate(database.url);
  db = createDb(database.url);
  await seedTeams();
  // 4 GPUs in all: team A's 2 guaranteed and team B's 2.
  op = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 2,
    service: "governance-test",
  });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("task governance on the local back end", () => {
  it("reclaims borrowed GPUs with a graceful preemption, then resumes the borrower from its checkpoint", async () => {
    // Team B's job takes all 4 GPUs: its own 2 and team A's idle 2.
    await op.submit(
      demoJobYaml({
        name: B.name,
        namespace: B.namespace,
        nodes: 2,
        ranks: 1,
        gpusPerPod: 2,
        gracefulSeconds: GRACEFUL_SECONDS,
        tee: true,
      }),
    );
    await wait(
      "B running with steps past 15",
      () => live(B)?.phase === "Running" && steps(B).length === 2 && Math.min(...steps(B)) >= 15,
      120_000,
    );
    expect(live(B)?.admission).toMatchObject({ state: "Admitted", preemptedBy: null });
    expect(live(B)?.request?.[GPU]).toBe(4);

    // Team A reclaims its guarantee: B's job is preempted (borrowed capacity is reclaimed first).
    await op.submit(
      demoJobYaml({
        name: A.name,
        namespace: A.namespace,
        nodes: 1,
        ranks: 1,
        gpusPerPod: 2,
        steps: 60,
      }),
    );
    const preemptedAt = Date.now();
    // The graceful stop can be over within a reconcile or two (the ranks save and exit in milliseconds), so
    // "Preempting" may come and go between two looks; while it is seen, A is not running. (Each job's live
    // view is written by its own reconcile, so B's may still say Preempting once A is admitted and Starting:
    // that A's pod is made only after B's ranks saved is checked below, from the files.)
    const seen = await wait(
      "B stopping for the preemption",
      () => {
        const state = live(B)?.admission?.state;
        return (state === "Preempting" || state === "Preempted") && { state, a: live(A)?.phase };
      },
      60_000,
    );
    if (seen.state === "Preempting") expect(["Pending", "Starting"]).toContain(seen.a);
    await wait(
      "B requeued",
      () => live(B)?.phase === "Pending" && live(B)?.admission?.state === "Preempted",
      90_000,
    );

    const stoppedIn = Date.now() - preemptedAt;
    const requeued = live(B);
    expect(requeued?.admission).toMatchObject({
      state: "Preempted",
      reason: "InCohortReclamation",
      preemptedBy: `${A.namespace}/${A.name}`,
    });
    expect(requeued?.pods.every((pod) => pod.phase === "Missing")).toBe(true);
    expect(requeued?.restartCount).toBe(0);
    // Graceful: each rank saved its checkpoint on SIGUSR1 and exited on its own, well within the timeout.
    expect(stoppedIn).toBeLessThan(GRACEFUL_SECONDS * 1000);
    const events = await op.backend.listEvents(B);
    const preempted = events.find((event) => event.reason === "Preempted");
    expect(preempted?.type).toBe("Warning");
    expect(preempted?.message).toMatch(
      /^Preempted to accommodate a workload .*hyperpod-ns-team-a\/a-reclaims/,
    );
    expect(events.find((event) => event.reason === "Requeued")?.message).toMatch(
      /2 rank\(s\) exited, 0 killed/,
    );
    // Not a fault: no other warning, nothing restarted.
    expect(events.filter((event) => event.type === "Warning").map((event) => event.reason)).toEqual([
      "Preempted",
    ]);
    for (const pod of ["b-borrows-workers-0", "b-borrows-workers-1"]) {
      const log = await op.backend.podLogs(B, pod, 400);
      expect(log).toContain("checkpoint saved on SIGUSR1");
    }
    const checkpoint = checkpointOf(B);
    expect(checkpoint).toBeGreaterThanOrEqual(15);

    // A's job runs on the reclaimed GPUs, made only after B's ranks had saved on SIGUSR1 (and then exited).
    await wait("A running", () => live(A)?.phase === "Running", 90_000);
    expect(live(A)?.admission?.state).toBe("Admitted");
    const [aPod] = await op.backend.listPods(A);
    expect(aPod?.createdAt).toBeGreaterThan(statSync(checkpointFile(B)).mtimeMs);

    // Why B waits, in numbers: 4 GPUs asked, 2 free, A's job holds the rest.
    await op.admission?.settled();
    const why = whyPending(
      await (op.admission?.snapshot(Date.now()) ?? Promise.reject(new Error("no admission"))),
      `${B.namespace}/${B.name}`,
    );
    expect(why?.reason).toBe("InsufficientQuota");
    expect(why?.shortfall).toContainEqual(expect.objectContaining({ resource: GPU, missing: 2 }));
    expect(why?.text).toMatch(/nvidia\.com\/gpu/);
    expect(live(B)?.reason).toMatch(/InsufficientQuota/);

    // A finishes: B is admitted again and resumes from its checkpoint, its step never going backwards.
    await wait("A succeeded", () => live(A)?.phase === "Succeeded", 120_000);
    await wait("B running again", () => live(B)?.phase === "Running" && steps(B).length === 2, 120_000);
    await wait(
      "B printed steps again",
      () => {
        const now = steps(B);
        return now.length === 2 && Math.min(...now) > checkpoint + 2;
      },
      60_000,
    );
    expect(live(B)?.admission?.state).toBe("Admitted");
    expect(live(B)?.restartCount).toBe(0);
    const resumed = await op.backend.podLogs(B, "b-borrows-workers-0", 400);
    expect(resumed).toContain(`resuming from checkpoint at step ${checkpoint}`);
  }, 480_000);
});
