import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import type { ClusterJob } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createLocalAdmission, type LocalAdmission } from "@/server/operator/admission/local";
import { submitOrThrow } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createSeededTestDatabase } from "@/test/database";

/**
 * The local admission over real PostgreSQL (the demo's seeded quotas) and the real local back end's jobs and
 * nodes (4 × 8 GPUs, as `npm start` runs): the demo job is admitted; a job outside any team queue is not
 * governed; one that does not fit waits with the domain's reason; an admission survives a new gate (an
 * operator restart) through the job's status; a released job's capacity goes to the next.
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");
const log = createLogger({ service: "admission-test" });

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let dataDir: string;
let backend: LocalBackend;
const gates: LocalAdmission[] = [];

async function gate(): Promise<LocalAdmission> {
  const created = await createLocalAdmission({ db, backend, log, reloadMs: 200 });
  gates.push(created);
  return created;
}

async function submit(yaml: string): Promise<ClusterJob> {
  const ref = await submitOrThrow(backend, yaml);
  const job = await backend.getJob(ref);
  if (!job) throw new Error(`${ref.name} was not stored`);
  return job;
}

/** The verdict once the cycles it triggered have run. */
async function settledVerdict(admission: LocalAdmission, job: ClusterJob) {
  await admission.verdict(job, Date.now());
  await admission.settled();
  return admission.verdict(job, Date.now());
}

beforeAll(async () => {
  database = await createSeededTestDatabase("admission_local");
  db = createDb(database.url);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-admission-"));
  backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: ROOT,
    nodeCount: 4,
    gpusPerNode: 8,
    nodeRebootMs: 0,
  });
}, 60_000);

afterAll(async () => {
  for (const each of gates) await each.dispose();
  await backend?.stop();
  await db?.$disconnect();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("local admission", () => {
  it("admits the demo job under the seeded quota and keeps the admission across a restart", async () => {
    const admission = await gate();
    const demo = await submit(readFileSync(path.join(ROOT, "examples/jobs/demo-job.yaml"), "utf8"));
    expect(await settledVerdict(admission, demo)).toMatchObject({ state: "Admitted", flavor: "default" });
    const described = admission.describe(demo);
    expect(described).toMatchObject({ state: "Admitted", preemptedBy: null });

    // A restarted operator's gate reads the admission from the job's status: admitted at once, no cycle.
    await backend.updateJobStatus(demo.ref, { rebound: { phase: "Running", admission: described } } as never);
    const restarted = await gate();
    const stored = await backend.getJob(demo.ref);
    if (!stored) throw new Error("demo job gone");
    expect(await restarted.verdict(stored, Date.now())).toMatchObject({ state: "Admitted" });
    expect(restarted.describe(stored)?.since).toBe(described?.since);
  });

  it("leaves a job outside any team queue ungoverned, and counts its GPUs off the capacity", async () => {
    const admission = await gate();
    const outside = await submit(demoJobYaml({ name: "outside", namespace: "default", nodes: 2, ranks: 4 }));
    expect(await admission.verdict(outside, Date.now())).toEqual({ state: "NotGoverned" });
    expect(admission.describe(outside)).toBeNull();
    await admission.settled();
    const snapshot = await admission.snapshot(Date.now());
    // 32 GPUs less the ungoverned job's 8.
    expect(snapshot.capacity.default?.["nvidia.com/gpu"]).toBe(24);
    await admission.release(outside);
    expect((await admission.snapshot(Date.now())).capacity.default?.["nvidia.com/gpu"]).toBe(32);
  });

  it("queues what does not fit with the domain's reason (asleep for the resync), and admits it once capacity is released", async () => {
    const admission = await gate();
    const namespace = "hyperpod-ns-vision";
    // Vision is guaranteed 8 GPUs and may borrow 50% more: 12 in all; 8 + 8 does not fit.
    const first = await submit(demoJobYaml({ name: "vision-a", namespace, nodes: 2, ranks: 4 }));
    const second = await submit(demoJobYaml({ name: "vision-b", namespace, nodes: 2, ranks: 4 }));
    expect(await settledVerdict(admission, first)).toMatchObject({ state: "Admitted" });
    const waiting = await settledVerdict(admission, second);
    expect(waiting.state).toBe("Pending");
    expect(waiting).toMatchObject({ reason: expect.stringMatching(/Insufficient|Quota/) });
    expect(admission.describe(second)).toMatchObject({ state: "Pending" });
    // Asleep for the resync once its reconcile has been told why it waits (settledVerdict asked it).
    expect(admission.sleeping?.(`${namespace}/vision-b`)).toBe(true);
    expect(admission.sleeping?.(`${namespace}/vision-a`)).toBe(false);
    expect(admission.sleeping?.(`${namespace}/never-seen`)).toBe(false);
    const woken: string[] = [];
    admission.onWake?.((key) => woken.push(key));
    await admission.release(first);
    await admission.settled();
    expect(await admission.verdict(second, Date.now())).toMatchObject({ state: "Admitted" });
    expect(woken).toContain(`${namespace}/vision-b`);
  });
});
