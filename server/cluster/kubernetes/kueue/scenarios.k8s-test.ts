import { afterAll, beforeAll, describe, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { DEFAULT_FLAVOR } from "@/server/domain/governance/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { Logger } from "@/server/log";
import { createKueueGate, type KueueGate } from "@/server/operator/admission/kueue";
import {
  type Engine,
  type JobState,
  jobManifest,
  type Outcome,
  reconcileElastic,
  runScenario,
  type SubmittedJob,
} from "@/test/governance-scenarios/run";
import { GPU, SCENARIOS } from "@/test/governance-scenarios/scenarios";
import { type JobObject, toClusterJob } from "../objects";
import { waitUntil } from "../testing/kube-env";
import { createKueueApi } from "./client";
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { KUEUE_GROUP, KUEUE_VERSION } from "./names";
import { syncKueue } from "./sync";
import { createKueueWorkloads } from "./workload-client";

/**
 * The governance scenarios (test/governance-scenarios/scenarios.ts) decided by the real Kueue controller, with
 * the Configuration deploy/kueue/ ships (fair sharing and its preemption strategies), through the operator's
 * Kueue gate and sync, as server/operator/admission/scenarios.test.ts runs them on the local admission: the
 * same steps, the same outcomes. Kueue decides on its own time, so a step holds once its outcome has held for
 * STABLE_MS; a preempted job's pods are taken as gone at once (the gate requeues it, as the operator does).
 * Each scenario's teams carry a prefix of their own, and its jobs are released before the next begins.
 */
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };
/** Also keeps each step's admissions in a second of their own: Kueue orders its candidates by that second. */
const STABLE_MS = 1_200;
const STEP_TIMEOUT_MS = 45_000;
const POLL_MS = 100;
const QUOTA_CHANGE_MS = 2_000;

let env: KueueEnv;
let gate: KueueGate;

beforeAll(async () => {
  env = await startKueueEnv({ controller: true, jobCrd: true });
  gate = createKueueGate({
    workloads: createKueueWorkloads({ kubeConfig: env.operatorKubeConfig, log: quiet }),
    log: quiet,
  });
}, 600_000);

afterAll(async () => {
  await gate?.dispose();
  await env?.stop();
}, 60_000);

/** The job (run.ts's manifest) created in its team's namespace. */
async function createJob(job: SubmittedJob) {
  const created = (await env.custom.createNamespacedCustomObject({
    group: JOB_GROUP,
    version: JOB_VERSION,
    plural: JOB_PLURAL,
    namespace: `hyperpod-ns-${job.team}`,
    body: jobManifest(job),
  })) as JobObject;
  const parsed = toClusterJob(created);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.job;
}

/** `gpus`: per pod. */
type Live = { job: ClusterJob; team: string; gpus: number };

function kueueEngine(): Engine & { cleanUp(): Promise<void> } {
  const live = new Map<string, Live>();
  let preempted: string[] = [];
  const requeued = new Set<string>();
  let teams: string[] = [];

  /** One look at a live job; an evicted one is requeued (its pods are gone at once). */
  const lookAt = async (name: string, { job, team, gpus }: Live): Promise<JobState> => {
    const verdict = await gate.verdict(job, Date.now());
    if (verdict.state !== "Evicted") requeued.delete(name);
    else if (!requeued.has(name)) {
      // The gate's cache may show it evicted a moment after the requeue: counted and requeued once.
      requeued.add(name);
      preempted.push(name);
      await gate.requeue(job);
    }
    const admitted = verdict.state === "Admitted";
    // An elastic job's steps are the operator's to ask for and give back (run.ts), on every look.
    const held = job.object.spec.elasticPolicy
      ? (await reconcileElastic(gate.elastic, job, admitted)) * gpus
      : gpus;
    return { name, team, gpus: held, admitted };
  };
  const look = async (): Promise<Outcome> => {
    const jobs: JobState[] = [];
    for (const [name, entry] of live) jobs.push(await lookAt(name, entry));
    return { jobs, preempted: [...preempted] };
  };

  return {
    async configure(config, gpus) {
      const changing = teams.length > 0;
      // With the cluster's capacity, as the operator syncs: the Cohort's quota is the idle capacity.
      await syncKueue(config, createKueueApi(env.kubeConfig), { [DEFAULT_FLAVOR]: { [GPU]: gpus } });
      // A changed quota of live ClusterQueues: give Kueue's cache the moment it takes to read it.
      if (changing) await new Promise((resolve) => setTimeout(resolve, QUOTA_CHANGE_MS));
      teams = config.teams.map((t) => t.team);
      // A removed team's ClusterQueue would still lend to the cohort: wait until only this scenario's are left.
      const wanted = new Set(teams.map((team) => `hyperpod-ns-${team}-clusterqueue`));
      await waitUntil("only this scenario's ClusterQueues", async () => {
        const list = (await env.custom.listClusterCustomObject({
          group: KUEUE_GROUP,
          version: KUEUE_VERSION,
          plural: "clusterqueues",
        })) as { items: Array<{ metadata: { name: string } }> };
        return list.items.every((cq) => wanted.has(cq.metadata.name));
      });
      for (const team of teams)
        await waitUntil(`ClusterQueue of ${team} to be active`, async () => {
          const cq = (await env.read("clusterqueues", `hyperpod-ns-${team}-clusterqueue`)) as {
            status?: { conditions?: Array<{ type: string; status: string }> };
          } | null;
          return cq?.status?.conditions?.some((c) => c.type === "Active" && c.status === "True");
        });
    },
    async submit(job) {
      const created = await createJob(job);
      live.set(job.name, { job: created, team: job.team, gpus: job.gpus });
      await gate.verdict(created, Date.now()); // creates its Workload
    },
    async remove(name) {
      const entry = live.get(name);
      if (!entry) return;
      live.delete(name);
      await gate.release(entry.job);
    },
    async settle(done) {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      let heldSince: number | null = null;
      let outcome = await look();
      const held = () => heldSince !== null && Date.now() - heldSince >= STABLE_MS;
      while (Date.now() < deadline && !held()) {
        heldSince = done(outcome) ? (heldSince ?? Date.now()) : null;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        outcome = await look();
      }
      preempted = [];
      return outcome;
    },
    /** Releases every job and waits for their Workloads to be gone, so the next scenario's cohort is empty. */
    async cleanUp() {
      const jobs = [...live.values()];
      live.clear();
      for (const { job } of jobs) await gate.release(job);
      for (const { job } of jobs)
        await waitUntil(`${job.ref.name}'s Workload to be gone`, () => gate.describe(job) === null);
    },
  };
}

describe("governance scenarios on real Kueue", () => {
  for (const [index, scenario] of SCENARIOS.entries()) {
    it(scenario.name, async () => {
      const engine = kueueEngine();
      try {
        await runScenario(engine, scenario, `s${index + 1}-`);
      } finally {
        await engine.cleanUp();
      }
    }, 180_000);
  }
});
