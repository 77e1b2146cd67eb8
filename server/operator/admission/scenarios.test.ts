import { describe, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { baseWorkload } from "@/server/domain/elastic/step-workload";
import { decideAdmissions, teamOfNamespace } from "@/server/domain/governance";
import { DEFAULT_FLAVOR, type GovernanceConfig, GPU } from "@/server/domain/governance/types";
import { parseJobObject } from "@/server/domain/job-spec/parse-job";
import {
  type Engine,
  type JobState,
  jobManifest,
  reconcileElastic,
  runScenario,
  sizeOf,
} from "@/test/governance-scenarios/run";
import { SCENARIOS } from "@/test/governance-scenarios/scenarios";
import { applyDecision, snapshotOf } from "./local-cycle";
import { createLocalElastic } from "./local-elastic";
import type { Entry } from "./local-entries";

/**
 * The governance scenarios (test/governance-scenarios/scenarios.ts) on the local back end's admission: its
 * cycle (local-cycle.ts over the domain's decideAdmissions) and its entries, as local.ts runs them, with what
 * the operator does around them: a preempted job's pods stop at once and it is requeued; a deleted job is
 * released. The same scenarios run against real Kueue in scenarios.k8s-test.ts.
 */

const MAX_CYCLES = 200;

type Submitted = { job: ClusterJob; team: string; gpusPerPod: number };

function localEngine(): Engine {
  const entries = new Map<string, Entry>();
  const submitted = new Map<string, Submitted>();
  let config: GovernanceConfig | null = null;
  let capacity = 0;
  let now = 1_000_000;
  let preempted: string[] = [];
  const keyOf = (job: ClusterJob) => `${job.ref.namespace}/${job.ref.name}`;
  const elastic = createLocalElastic({
    entries,
    teamOf: (job) => teamOfNamespace(job.ref.namespace),
    freeGpus: async () => capacity,
    schedule: () => undefined,
    clock: () => now,
  });
  const isElastic = (job: ClusterJob) => job.object.spec.elasticPolicy !== undefined;

  const jobs = (): JobState[] =>
    [...submitted.entries()].map(([name, { job, team, gpusPerPod }]) => {
      const entry = entries.get(keyOf(job));
      return {
        name,
        team,
        gpus: isElastic(job) ? sizeOf(job) * gpusPerPod : (entry?.workload.request[GPU] ?? 0),
        admitted: entry !== undefined && entry.state !== "pending",
      };
    });

  /** What settling watches for: every entry's state and every elastic job's size. */
  const signature = () =>
    JSON.stringify([
      [...entries].map(([key, entry]) => [key, entry.state]),
      [...submitted.values()].map(({ job }) => sizeOf(job)),
    ]);

  /** One admission cycle, as local.ts runs it. */
  const runCycle = (): void => {
    if (config === null) throw new Error("configure first");
    now += 1000;
    const capacityNow = { [DEFAULT_FLAVOR]: { [GPU]: capacity } };
    const snapshot = snapshotOf({ config, capacity: capacityNow, entries, now });
    applyDecision(entries, decideAdmissions(snapshot), now);
  };
  /** The preempted jobs' pods are gone at once: they wait again (local.ts requeue). */
  const requeueEvicted = (): void => {
    for (const [name, { job }] of submitted) {
      const entry = entries.get(keyOf(job));
      if (entry?.state !== "evicting") continue;
      preempted.push(name);
      entries.set(keyOf(job), { ...entry, state: "pending", flavor: null, since: now });
    }
  };
  /** Each elastic job's reconcile (run.ts), its own entry admitted or not. */
  const reconcileElasticJobs = async (): Promise<void> => {
    for (const { job } of submitted.values())
      if (isElastic(job)) await reconcileElastic(elastic, job, entries.get(keyOf(job))?.state === "admitted");
  };

  return {
    async configure(next, gpus) {
      config = next;
      capacity = gpus;
    },
    async submit(input) {
      now += 1000;
      const parsed = parseJobObject(jobManifest(input));
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      const job: ClusterJob = {
        ref: { namespace: `hyperpod-ns-${input.team}`, name: input.name },
        uid: input.name,
        generation: 1,
        createdAt: new Date(now),
        object: parsed.job,
        status: {},
        deleting: false,
      };
      submitted.set(input.name, { job, team: input.team, gpusPerPod: input.gpus });
      entries.set(keyOf(job), {
        uid: job.uid,
        workload: baseWorkload(job.object, { team: input.team, createdAt: now }),
        state: "pending",
        flavor: null,
        since: now,
        reason: "Pending",
        message: "",
        preemption: null,
      });
    },
    async remove(name) {
      const found = submitted.get(name);
      if (!found) return;
      submitted.delete(name);
      entries.delete(keyOf(found.job));
      elastic.releaseAll(keyOf(found.job));
    },
    async settle() {
      for (let cycle = 0; cycle < MAX_CYCLES; cycle++) {
        const before = signature();
        runCycle();
        requeueEvicted();
        await reconcileElasticJobs();
        if (signature() === before) {
          const outcome = { jobs: jobs(), preempted };
          preempted = [];
          return outcome;
        }
      }
      throw new Error(`no steady state after ${MAX_CYCLES} cycles`);
    },
  };
}

describe("governance scenarios on the local admission", () => {
  it.each(SCENARIOS.map((scenario) => ({ name: scenario.name, scenario })))("$name", async ({ scenario }) => {
    await runScenario(localEngine(), scenario);
  });
});
