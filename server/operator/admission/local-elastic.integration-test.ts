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
 * Elastic capacity of the local admission over real PostgreSQL (the demo's seeded quotas: LLM Research 16
 * GPUs, Vision 8, preemption of lower priority within a team) and the real local back end (4 × 8 GPUs): an
 * elastic job's base is admitted at minReplicas and its steps as capacity allows; a job of the same class
 * in the same team takes the elastic job's largest step (steps rank one notch below their class), never its
 * base; the step once released goes to that job.
 */
const log = createLogger({ service: "admission-elastic-test" });
const NS = "hyperpod-ns-llm-research";

let env: LocalBackendEnv | undefined;
let db: Db;
let backend: LocalBackend;
let admission: LocalAdmission;

async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !probe(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
}

async function submit(yaml: string): Promise<ClusterJob> {
  const ref = await submitOrThrow(backend, yaml);
  const job = await backend.getJob(ref);
  if (!job) throw new Error(`${ref.name} was not stored`);
  return job;
}

/** One pod of 8 GPUs at minimum, up to 4 (32 GPUs: the whole cluster). */
function elasticYaml(): string {
  const base = demoJobYaml({ name: "grows", namespace: NS, nodes: 1, ranks: 8, gracefulSeconds: 30 });
  const from = base.indexOf("  elasticPolicy:");
  const to = base.indexOf("  runPolicy:");
  const policy =
    "  elasticPolicy:\n    minReplicas: 1\n    maxReplicas: 4\n    gracefulShutdownTimeoutInSeconds: 30\n";
  return `${base.slice(0, from)}${policy}${base.slice(to)}`;
}

beforeAll(async () => {
  env = await openLocalBackendEnv({ name: "admission_elastic", nodeCount: 4, gpusPerNode: 8 });
  ({ db, backend } = env);
  admission = await createLocalAdmission({ db, backend, log, reloadMs: 200 });
}, 60_000);

afterAll(async () => {
  await admission?.dispose();
  await env?.close();
});

describe("local elastic capacity", () => {
  it("admits steps as capacity allows, gives the largest to a same-class job of the team, never the base", async () => {
    const elastic = admission.elastic;
    if (!elastic) throw new Error("the local admission has no elastic capacity");
    const grows = await submit(elasticYaml());
    await admission.verdict(grows, Date.now());
    await admission.settled();
    expect(await admission.verdict(grows, Date.now())).toMatchObject({ state: "Admitted" });
    // The base holds one pod's 8 GPUs only.
    expect(elastic.admitted(grows)).toBe(1);
    expect(await elastic.request(grows, 4)).toBe("pending");
    await admission.settled();
    // LLM Research's 16 and 8 borrowed (its 50% borrow limit): up to 3; the last step waits.
    expect(elastic.admitted(grows)).toBe(3);
    expect(await elastic.request(grows, 4)).toBe("pending");
    expect(elastic.preempted(grows)).toBeNull();
    // It scaled up to 3: its pods use both steps (status.rebound.elastic, as the operator writes it).
    grows.status = { rebound: { elastic: { size: 3, scaling: null } } } as ClusterJob["status"];

    // A job of the same class in the same team: the elastic job's largest step goes, not its base.
    const same = await submit(demoJobYaml({ name: "same-class", namespace: NS, nodes: 1, ranks: 8 }));
    await admission.verdict(same, Date.now());
    // (Cycles repeat until the victim gives its capacity back: settled() would wait for the release.)
    await until(() => elastic.preempted(grows) !== null);
    expect(elastic.preempted(grows)).toBe(2);
    expect(await admission.verdict(grows, Date.now())).toMatchObject({ state: "Admitted" });
    expect((await admission.verdict(same, Date.now())).state).toBe("Pending");

    // Scaled down to 2 and the steps above released: the other job is admitted; nothing more is preempted.
    await elastic.release(grows, 2);
    await admission.settled();
    expect(await admission.verdict(same, Date.now())).toMatchObject({ state: "Admitted" });
    expect(elastic.preempted(grows)).toBeNull();
    expect(elastic.admitted(grows)).toBe(2);

    // The job finished: its base and steps are all free again.
    await admission.release(grows);
    await admission.settled();
    const snapshot = await admission.snapshot(Date.now());
    expect(snapshot.admitted.map((w) => w.key)).toEqual([`${NS}/same-class`]);
  });
});
