import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { GPU } from "@/server/domain/governance/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { listScalingEvents } from "@/server/store/scaling-events/queries";
import { createTestDatabase } from "@/test/database";

/**
 * Elastic training on the local back end, end to end (issue 14): real PostgreSQL, the operator with its local
 * admission, real agents and demo-trainer workers, 4 nodes × 2 GPUs. Team A's elastic job (1 to 4 pods of
 * 2 GPUs) starts at its minimum while team B's job holds 6 GPUs; B's job ends and A's grows to 4 (borrowing
 * B's idle GPUs, after the stabilisation); a higher-priority job of team B arrives and A's shrinks to what is
 * left (2), gracefully; that job ends and A's grows back to 4. Throughout, the trainer's step never goes
 * backwards and no rank is SIGKILLed (every stop is SIGUSR1 well within the graceful timeout).
 */

const GRACEFUL_SECONDS = 20;
const A: JobRef = { namespace: "hyperpod-ns-team-a", name: "a-elastic" };
const B1: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-first" };
const B2: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-urgent" };

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let op: LocalOperator;

async function seedTeams(): Promise<void> {
  await db.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
  await db.priorityClass.create({ data: { name: "training", weight: 50 } });
  await db.priorityClass.create({ data: { name: "inference", weight: 100 } });
  const teams = [
    { name: "team-a", guaranteed: 2 },
    { name: "team-b", guaranteed: 6 },
  ];
  for (const team of teams) {
    await db.team.create({
      data: {
        name: team.name,
        displayName: team.name,
        namespace: `hyperpod-ns-${team.name}`,
        quota: {
          create: {
            borrowStrategy: "LendAndBorrow",
            borrowLimitPercent: 300,
            resources: { create: [{ resource: GPU, guaranteed: team.guaranteed }] },
          },
        },
      },
    });
  }
}

function elasticYaml(): string {
  const base = demoJobYaml({
    name: A.name,
    namespace: A.namespace,
    nodes: 1,
    ranks: 1,
    gpusPerPod: 2,
    gracefulSeconds: GRACEFUL_SECONDS,
    tee: true,
    labels: { "kueue.x-k8s.io/priority-class": "training-priority" },
  });
  const policy = [
    "  elasticPolicy:",
    "    minReplicas: 1",
    "    maxReplicas: 4",
    "    replicaIncrementStep: 1",
    "    scalingTimeoutInSeconds: 2",
    `    gracefulShutdownTimeoutInSeconds: ${GRACEFUL_SECONDS}`,
    "    faultyScaleDownTimeoutInSeconds: 30",
    "",
  ].join("\n");
  const from = base.indexOf("  elasticPolicy:");
  const to = base.indexOf("  runPolicy:");
  return `${base.slice(0, from)}${policy}${base.slice(to)}`;
}

const live = (ref: JobRef) => op.live(ref);
const size = () => live(A)?.elastic?.actualReplicas;

/** Samples rank 0's step and every rank's end signal of A's job throughout (the trainer's progress). */
function sampler() {
  const rank0: number[] = [];
  const signals = new Set<string>();
  const timer = setInterval(() => {
    const ranks = (live(A)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => ({ pod, rank })));
    for (const { rank } of ranks) if (rank.signal) signals.add(rank.signal);
    const first = ranks.find(({ pod, rank }) => pod.groupRank === 0 && rank.rank === 0);
    if (first?.rank.step != null) rank0.push(first.rank.step);
  }, 50);
  return { rank0, signals, stop: () => clearInterval(timer) };
}

function summary(ref: JobRef): string {
  const job = live(ref);
  if (!job) return `${ref.name}: not seen`;
  const pods = job.pods.map((pod) => `${pod.name}:${pod.phase}/${pod.agentState}`);
  return `${ref.name}: ${job.phase} ${job.reason ?? ""} elastic=${JSON.stringify(job.elastic)} pods=${pods.join(" ")}`;
}

async function wait<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  try {
    return await op.waitFor(what, probe, timeoutMs);
  } catch (error) {
    const events = (await op.backend.listEvents(A)).map((e) => `${e.reason}: ${e.message}`);
    throw new Error(
      `${String(error)}\n${summary(A)}\n${summary(B1)}\n${summary(B2)}\nA events: ${events.join(" | ")}`,
    );
  }
}

/** A's job runs at `replicas` with every rank printing steps past `beyond`. */
async function runningAt(replicas: number, beyond: number): Promise<void> {
  await wait(
    `A running at ${replicas} past step ${beyond}`,
    () => {
      const job = live(A);
      if (job?.phase !== "Running" || size() !== replicas || job.elastic?.targetReplicas !== replicas)
        return false;
      const steps = job.pods.flatMap((pod) => pod.ranks.map((rank) => rank.step ?? -1));
      return steps.length === replicas && Math.min(...steps) > beyond;
    },
    180_000,
  );
}

const rank0Step = () => live(A)?.pods[0]?.ranks[0]?.step ?? 0;

beforeAll(async () => {
  database = await createTestDatabase("elastic_local");
  await migrate(database.url);
  db = createDb(database.url);
  await seedTeams();
  op = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 4,
    gpusPerNode: 2,
    service: "elastic-test",
  });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("elastic training on the local back end", () => {
  it("grows into freed GPUs, shrinks gracefully for higher-priority work, grows back; steps never go backwards", async () => {
    // Team B's job holds 6 of the 8 GPUs for a while; A's elastic job starts at its minimum beside it.
    await op.submit(
      demoJobYaml({ name: B1.name, namespace: B1.namespace, nodes: 3, ranks: 1, gpusPerPod: 2, steps: 150 }),
    );
    await wait("B1 running", () => live(B1)?.phase === "Running", 120_000);
    const samples = sampler();
    try {
      await op.submit(elasticYaml());
      await runningAt(1, 3);
      expect(live(A)?.elastic).toMatchObject({ min: 1, max: 4 });
      // It stays at 1 while B1 holds the rest: its steps wait for capacity.
      expect(live(B1)?.phase).toBe("Running");

      // B1 ends: A grows to 4, borrowing B's idle GPUs.
      await wait("B1 succeeded", () => live(B1)?.phase === "Succeeded", 180_000);
      await runningAt(4, rank0Step());
      const grown = await op.backend.getJob(A);
      expect(grown?.status.elasticScalingStatus).toMatchObject({
        targetReplicas: { workers: 4 },
        podsScaled: true,
        isFaultyPodScaleDown: false,
        consecutiveScalingFailures: 0,
      });

      // A higher-priority job of team B needs 4 GPUs: A shrinks to 2, gracefully, within the timeout.
      const urgent = demoJobYaml({
        name: B2.name,
        namespace: B2.namespace,
        nodes: 2,
        ranks: 1,
        gpusPerPod: 2,
        steps: 100,
        labels: { "kueue.x-k8s.io/priority-class": "inference-priority" },
      });
      const arrived = Date.now();
      await op.submit(urgent);
      await runningAt(2, rank0Step());
      await wait("B2 running", () => live(B2)?.phase === "Running", 120_000);
      expect(Date.now() - arrived).toBeLessThan(180_000);

      // B2 ends: A grows back to 4.
      await wait("B2 succeeded", () => live(B2)?.phase === "Succeeded", 180_000);
      await runningAt(4, rank0Step());
    } finally {
      samples.stop();
    }

    // The trainer's step never went backwards, and it moved on.
    const backwards = samples.rank0.filter((step, i) => i > 0 && step < (samples.rank0[i - 1] ?? 0));
    expect(backwards).toEqual([]);
    expect(samples.rank0.at(-1) ?? 0).toBeGreaterThan(samples.rank0[0] ?? 0);
    // No rank was SIGKILLed: every stop was the graceful SIGUSR1, saved and exited on its own.
    expect([...samples.signals]).not.toContain("SIGKILL");
    const events = await op.backend.listEvents(A);
    expect(events.filter((e) => e.type === "Warning").map((e) => e.reason)).toEqual([]);
    const told = events.map((e) => `${e.reason}: ${e.message}`).join("\n");
    expect(
      events.filter((e) => e.reason === "Scaled").map((e) => e.message.split(" (")[0]),
      told,
    ).toEqual(["Scaled from 1 to 4 replicas", "Scaled from 4 to 2 replicas", "Scaled from 2 to 4 replicas"]);
    expect(await op.backend.podLogs(A, `${A.name}-workers-0`, 2000)).toContain("checkpoint saved on SIGUSR1");
    expect(live(A)?.restartCount).toBe(0);

    // The scaling history: sizes over time with reasons.
    const job = await op.backend.getJob(A);
    const rows = await listScalingEvents(db, { ...A, jobName: A.name, jobUid: job?.uid ?? "" });
    expect(rows.map((r) => [r.fromReplicas, r.toReplicas, r.reason, r.outcome])).toEqual([
      [1, 4, "ScaleUp", "Scaled"],
      [4, 2, "Preempted", "Scaled"],
      [2, 4, "ScaleUp", "Scaled"],
    ]);
  }, 900_000);
});
