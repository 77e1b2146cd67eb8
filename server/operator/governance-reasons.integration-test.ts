import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobDetailText } from "@/server/cli/job-format";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { GPU } from "@/server/domain/governance/types";
import { whyPendingOf } from "@/server/operator/api/why-pending";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { queueOf } from "@/server/services/governance/queue";
import { snapshotOf, teamNamespaces } from "@/server/services/governance/snapshot";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { createTestDatabase } from "@/test/database";

/**
 * Pending reasons stay current (issue 37): team A has 8 GPUs and DontLend; j1 (4) and j2 (4) run, j3 (6) and
 * j4 (6) wait. Deleting j1 leaves 4 free: within a few seconds j3's Admitted condition, the team's queue (as
 * the console builds it from the operator's live jobs), `rebound job` and "why pending" (the operator's
 * answer, as the job's page asks it) all say 2 more are needed; deleting j3 takes it out of the jobs ahead of j4 in all of them. A job larger than the team can ever
 * have waits with ExceedsCapacity and a Warning event says so.
 */

const NS = "hyperpod-ns-team-a";
const ref = (name: string): JobRef => ({ namespace: NS, name });
const key = (name: string) => `${NS}/${name}`;

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let op: LocalOperator;

beforeAll(async () => {
  database = await createTestDatabase("governance_reasons");
  await migrate(database.url);
  db = createDb(database.url);
  await db.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
  await db.team.create({
    data: {
      name: "team-a",
      displayName: "team-a",
      namespace: NS,
      quota: {
        create: { borrowStrategy: "DontLend", resources: { create: [{ resource: GPU, guaranteed: 8 }] } },
      },
    },
  });
  op = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 4,
    service: "reasons-test",
  });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

/** `nodes` pods of 2 GPUs each, slow steps: it runs until deleted. */
const job = (name: string, gpus: number) =>
  demoJobYaml({
    name,
    namespace: NS,
    nodes: gpus / 2,
    ranks: 1,
    gpusPerPod: 2,
    stepMs: 1000,
    hangSeconds: 60,
  });

/** The message of the job's Admitted condition, as stored in its status. */
async function condition(name: string): Promise<string> {
  const found = await op.backend.getJob(ref(name));
  const conditions = (found?.status as { conditions?: Array<Record<string, string>> } | undefined)
    ?.conditions;
  return conditions?.find((c) => c.type === "Admitted")?.message ?? "";
}

/** The team's queue as the console shows it, from the operator's live jobs. */
async function queueMessage(name: string): Promise<string | undefined> {
  const [config, teamOfNamespace] = await Promise.all([loadGovernanceConfig(db), teamNamespaces(db)]);
  const nodes = await op.backend.listNodes();
  const snap = snapshotOf({ config, nodes, jobs: op.deps.live.list(), teamOfNamespace, now: Date.now() });
  return queueOf(snap, "team-a").pending.find((row) => row.key === key(name))?.message;
}

/**
 * What `rebound job <name>` prints (the CLI prints the operator's live list; `rebound jobs` shows the same
 * reason cut to one line, too short for the numbers).
 */
function cliText(name: string): string {
  const job = op.deps.live.list().find((live) => live.namespace === NS && live.name === name);
  return job ? jobDetailText(job, Date.now()) : "";
}

/** "Why pending" as the job's page shows it: the operator's answer from its admission (its API route). */
async function whyText(name: string): Promise<string> {
  const { body } = await whyPendingOf(op.deps, ref(name));
  return body.answer?.text ?? "";
}

/** Waits until the condition, the queue, the CLI and why-pending all match (and none of them `not`). */
async function allSay(name: string, says: RegExp, not: RegExp | null, timeoutMs: number) {
  const views = async () => ({
    condition: await condition(name),
    queue: (await queueMessage(name)) ?? "",
    cli: cliText(name),
    why: await whyText(name),
  });
  let last: Awaited<ReturnType<typeof views>> | null = null;
  try {
    await op.waitFor(
      `${name}'s reasons to match ${says}`,
      async () => {
        last = await views();
        return Object.values(last).every((text) => says.test(text) && (not === null || !not.test(text)));
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${String(error)}\n${JSON.stringify(last, null, 2)}`);
  }
}

async function remove(name: string) {
  await op.backend.requestDeletion(ref(name));
  await op.waitFor(`${name} deleted`, async () => (await op.backend.getJob(ref(name))) === null, 60_000);
}

describe("pending reasons stay current on the local back end", () => {
  it("rewrites the amount missing and the jobs ahead in the condition, the queue, the CLI and why-pending", async () => {
    await op.submit(job("j1", 4));
    await op.submit(job("j2", 4));
    await op.waitFor(
      "j1 and j2 admitted",
      () => ["j1", "j2"].every((name) => op.live(ref(name))?.admission?.state === "Admitted"),
      60_000,
    );
    await op.submit(job("j3", 6));
    await op.submit(job("j4", 6));
    await allSay("j3", /6 more needed/, null, 30_000);
    expect(await condition("j3")).toContain(
      "couldn't assign flavors to pod set workers: insufficient unused quota",
    );
    await allSay("j4", /6 more needed.*1 ahead of it/s, null, 30_000);

    // j1 goes: 4 GPUs free, 2 more needed, said everywhere within a few seconds.
    await remove("j1");
    await allSay("j3", /2 more needed/, /6 more needed/, 5_000);
    await allSay("j4", /2 more needed.*1 ahead of it.*j3/s, /6 more needed/, 5_000);

    // j3 goes: nothing is ahead of j4 any more.
    await remove("j3");
    await allSay("j4", /2 more needed/, /ahead of it/, 5_000);
    expect(op.live(ref("j4"))?.admission?.state).toBe("Pending");
  }, 240_000);

  it("says in a Warning event when a job can never fit", async () => {
    await op.submit(job("huge", 10));
    await op.waitFor(
      "the ExceedsCapacity event",
      async () =>
        (await op.backend.listEvents(ref("huge"))).find(
          (event) => event.type === "Warning" && event.reason === "ExceedsCapacity",
        ),
      30_000,
    );
    expect(await condition("huge")).toMatch(/request > maximum capacity/);
    // Once: the reconciles that follow do not repeat it.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const warnings = (await op.backend.listEvents(ref("huge"))).filter((event) => event.type === "Warning");
    expect(warnings.map((event) => event.reason)).toEqual(["ExceedsCapacity"]);
  }, 60_000);
});
