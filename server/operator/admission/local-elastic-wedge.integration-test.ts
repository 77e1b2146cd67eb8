import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalBackend } from "@/server/cluster/local/backend";
import type { ClusterJob } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createLocalAdmission, type LocalAdmission } from "@/server/operator/admission/local";
import { submitOrThrow } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalBackendEnv, openLocalBackendEnv } from "./testing/local-backend-env";

/**
 * A step of an elastic job preempted before the job uses it (issue 37, problem 7), over real PostgreSQL (the
 * demo's LLM Research quota, 16 GPUs) and the real local back end (8 nodes × 2 GPUs), one team, one
 * priority: B (4 nodes), A (2), then E {min 2, max 4, step 2, scalingTimeoutInSeconds 60}. Once E runs at 2,
 * A ends, and E's step to 4 is admitted; within E's 60 s stabilisation C (2 nodes) arrives and preempts
 * that step, which no pod uses yet. C must run at once (the step has nothing to stop), and E must grow into
 * the step again once C is deleted. Before the fix C waited on "Preempting: waiting for …/e#4 to stop"
 * forever with 4 GPUs free, and E never grew again.
 *
 * E's reconciles are played by hand as the operator makes them (server/operator/reconcilers/elastic.ts:
 * while it runs at 2 and stabilises, it asks for its largest size and reads whether a step was preempted).
 */
const log = createLogger({ service: "admission-elastic-wedge-test" });
const NS = "hyperpod-ns-llm-research";

let env: LocalBackendEnv | undefined;
let db: Db;
let backend: LocalBackend;
let admission: LocalAdmission;

async function submit(yaml: string): Promise<ClusterJob> {
  const ref = await submitOrThrow(backend, yaml);
  const job = await backend.getJob(ref);
  if (!job) throw new Error(`${ref.name} was not stored`);
  return job;
}

/** Nodes of 2 GPUs each (2 ranks, one GPU per rank). */
const plainYaml = (name: string, nodes: number) => demoJobYaml({ name, namespace: NS, nodes, ranks: 2 });

function elasticYaml(): string {
  const base = demoJobYaml({ name: "e", namespace: NS, nodes: 2, ranks: 2, gracefulSeconds: 30 });
  const from = base.indexOf("  elasticPolicy:");
  const to = base.indexOf("  runPolicy:");
  const policy = [
    "  elasticPolicy:",
    "    minReplicas: 2",
    "    maxReplicas: 4",
    "    replicaIncrementStep: 2",
    "    scalingTimeoutInSeconds: 60",
    "    gracefulShutdownTimeoutInSeconds: 30",
    "",
  ].join("\n");
  return `${base.slice(0, from)}${policy}${base.slice(to)}`;
}

/**
 * Polls (cycles repeat while a preemption waits for its victim, so settled() would not return in a wedge)
 * until `probe` holds; each round first plays E's reconcile. False when it never did within `ms`.
 */
async function until(reconcileE: () => Promise<void>, probe: () => Promise<boolean>, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await reconcileE();
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

beforeAll(async () => {
  env = await openLocalBackendEnv({ name: "admission_elastic_wedge", nodeCount: 8, gpusPerNode: 2 });
  ({ db, backend } = env);
  admission = await createLocalAdmission({ db, backend, log, reloadMs: 200 });
}, 60_000);

afterAll(async () => {
  await admission?.dispose();
  await env?.close();
});

describe("an elastic step preempted before use", () => {
  it("is given back at once: the preemptor runs with the GPUs free, and the job grows again after it", async () => {
    const elastic = admission.elastic;
    if (!elastic) throw new Error("the local admission has no elastic capacity");
    const b = await submit(plainYaml("b", 4));
    const a = await submit(plainYaml("a", 2));
    const e = await submit(elasticYaml());
    for (const job of [b, a, e]) await admission.verdict(job, Date.now());
    await admission.settled();
    for (const job of [b, a, e])
      expect(await admission.verdict(job, Date.now())).toMatchObject({ state: "Admitted" });
    // E runs at 2, as the operator writes it; it asks for 4, which waits for room.
    e.status = { rebound: { elastic: { size: 2, scaling: null } } } as ClusterJob["status"];
    const reconcileE = async () => {
      elastic.preempted(e);
      await elastic.request(e, 4);
    };
    expect(elastic.admitted(e)).toBe(2);
    expect(elastic.workloadRef?.(e)).toEqual({ kind: "Workload", namespace: NS, name: "e" });
    await reconcileE();
    await admission.settled();
    expect(elastic.admitted(e)).toBe(2);

    // A ends: E's step to 4 is admitted (E stabilises 60 s before using it).
    await admission.release(a);
    await admission.settled();
    expect(elastic.admitted(e)).toBe(4);

    // C arrives while E still runs at 2: it preempts the unused step and runs at once.
    const c = await submit(plainYaml("c", 2));
    await admission.verdict(c, Date.now());
    const cRuns = await until(
      reconcileE,
      async () => (await admission.verdict(c, Date.now())).state === "Admitted",
    );
    const verdict = await admission.verdict(c, Date.now());
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ state: "Admitted" });
    expect(cRuns).toBe(true);
    // E is not asked to scale down (its pods never used the step), and it still runs at 2.
    expect(elastic.preempted(e)).toBeNull();
    expect(elastic.admitted(e)).toBe(2);
    // The step waits again, behind C: every GPU is held by a job using it (B 8, E 4, C 4).
    const snapshot = await admission.snapshot(Date.now());
    expect(snapshot.pending.map((w) => w.key)).toEqual([`${NS}/e#4`]);
    expect(snapshot.admitted.map((w) => w.key).sort()).toEqual([`${NS}/b`, `${NS}/c`, `${NS}/e`]);

    // C is deleted: E's step is admitted again, so E grows.
    await admission.release(c);
    const grows = await until(reconcileE, async () => elastic.admitted(e) === 4);
    expect(grows).toBe(true);
    expect(elastic.preempted(e)).toBeNull();
  }, 30_000);
});
