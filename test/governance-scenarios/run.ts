import { expect } from "vitest";
import type { ElasticCapacity } from "@/server/cluster/elastic-capacity";
import type { ClusterJob } from "@/server/cluster/types";
import { sizesOf } from "@/server/domain/elastic/sized-job";
import { largestAllowedAtMost } from "@/server/domain/elastic/sizes";
import type { GovernanceConfig } from "@/server/domain/governance/types";
import { JOB_API_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import {
  capacityOf,
  configOf,
  DEFAULT_PRIORITY,
  GPU,
  type Scenario,
  type ScenarioElastic,
  type ScenarioEvent,
  type ScenarioStep,
} from "./scenarios";

/**
 * Runs a scenario (scenarios.ts) step by step on one engine and asserts each step's outcome. An engine is
 * driven by events and tells, once settled, which jobs hold capacity and which were preempted meanwhile.
 */

/** A job and the GPUs it holds now (an elastic job's: its size × its GPUs per pod). */
export type JobState = { name: string; team: string; gpus: number; admitted: boolean };

export type SubmittedJob = {
  name: string;
  team: string;
  /** GPUs per pod (one pod unless elastic). */
  gpus: number;
  priority: string;
  elastic?: ScenarioElastic;
};

export type Engine = {
  /** Applies the governance configuration (teams already carry the engine's prefix) on `gpus` GPUs. */
  configure(config: GovernanceConfig, gpus: number): Promise<void>;
  submit(job: SubmittedJob): Promise<void>;
  remove(name: string): Promise<void>;
  /**
   * Runs until `done` holds and stays so (Kueue, which decides on its own time) or until nothing changes any
   * more (local); returns the live jobs and the jobs preempted since the last call.
   */
  settle(done: (outcome: Outcome) => boolean): Promise<Outcome>;
};

export type Outcome = { jobs: readonly JobState[]; preempted: readonly string[] };

/**
 * The job as a user would submit it, in the team's namespace and queue: one replica spec of one-GPU-count
 * pods; an elastic job starts its spec at `min` replicas with an elasticPolicy up to `max` in `step`s.
 */
export function jobManifest(job: SubmittedJob) {
  const namespace = `hyperpod-ns-${job.team}`;
  const { elastic } = job;
  return {
    apiVersion: JOB_API_VERSION,
    kind: "HyperPodPyTorchJob",
    metadata: {
      name: job.name,
      namespace,
      labels: {
        "kueue.x-k8s.io/queue-name": `${namespace}-localqueue`,
        "kueue.x-k8s.io/priority-class": `${job.priority}-priority`,
      },
    },
    spec: {
      nprocPerNode: "1",
      ...(elastic
        ? {
            elasticPolicy: {
              minReplicas: elastic.min,
              maxReplicas: elastic.max,
              replicaIncrementStep: elastic.step,
            },
          }
        : {}),
      replicaSpecs: [
        {
          name: "workers",
          replicas: elastic?.min ?? 1,
          ...(elastic ? { maxReplicas: elastic.max } : {}),
          template: {
            spec: {
              containers: [
                { name: "trainer", image: "trainer:1", resources: { limits: { [GPU]: job.gpus } } },
              ],
            },
          },
        },
      ],
    },
  };
}

/** status.rebound.elastic as the operator writes it for the size the job's pods run at. */
function setSize(job: ClusterJob, size: number): void {
  job.status = { ...job.status, rebound: { elastic: { size, scaling: null } } } as ClusterJob["status"];
}

/** The size the job's status says it runs at (its minimum before it first ran). */
export function sizeOf(job: ClusterJob): number {
  const size = (job.status as { rebound?: { elastic?: { size?: number } } }).rebound?.elastic?.size;
  return size ?? job.object.spec.elasticPolicy?.minReplicas ?? 0;
}

/**
 * One reconcile of an elastic job, as the operator plays it (server/operator/reconcilers/elastic.ts) with its
 * stabilisation left out: not admitted, it holds no steps and starts again at its minimum; admitted, it
 * shrinks at once to what a preemption of its steps left it, asks for every step up to its maximum (the
 * operator is greedy, as HyperPod's), and grows into the steps admitted. Returns its size.
 */
export async function reconcileElastic(
  capacity: ElasticCapacity,
  job: ClusterJob,
  admitted: boolean,
): Promise<number> {
  const sizes = sizesOf(job.object);
  const min = sizes[0] ?? 0;
  if (!admitted) {
    if (sizeOf(job) !== min) await capacity.release(job, min);
    setSize(job, min);
    return min;
  }
  const preempted = capacity.preempted(job);
  if (preempted !== null && preempted < sizeOf(job)) {
    setSize(job, largestAllowedAtMost(sizes, preempted) ?? min);
    await capacity.release(job, sizeOf(job));
  }
  await capacity.request(job, sizes.at(-1) ?? min);
  const grown = largestAllowedAtMost(sizes, capacity.admitted(job)) ?? min;
  if (grown > sizeOf(job)) setSize(job, grown);
  return sizeOf(job);
}

/** What a step states, read off an outcome (so a step's expectation and an outcome compare as equals). */
type View = { admitted?: string[]; gpus?: Record<string, number>; preempted: string[] | number };

function viewOf(step: ScenarioStep, outcome: Outcome, prefix: string): View {
  const view: View = {
    preempted: step.preemptedCount !== undefined ? outcome.preempted.length : [...outcome.preempted].sort(),
  };
  if (step.admitted)
    view.admitted = outcome.jobs
      .filter((job) => job.admitted)
      .map((job) => job.name)
      .sort();
  if (step.gpus) {
    const gpus: Record<string, number> = Object.fromEntries(Object.keys(step.gpus).map((t) => [t, 0]));
    for (const job of outcome.jobs)
      if (job.admitted) {
        const team = job.team.slice(prefix.length);
        gpus[team] = (gpus[team] ?? 0) + job.gpus;
      }
    view.gpus = gpus;
  }
  return view;
}

function wantOf(step: ScenarioStep): View {
  const want: View = { preempted: step.preemptedCount ?? [...(step.preempted ?? [])].sort() };
  if (step.admitted) want.admitted = [...step.admitted].sort();
  if (step.gpus) want.gpus = { ...step.gpus };
  return want;
}

const same = (a: View, b: View) => JSON.stringify(a) === JSON.stringify(b);

function configAfter(scenario: Scenario, quotas: Map<string, number>, prefix: string): GovernanceConfig {
  return configOf(
    scenario.teams.map((t) => ({ ...t, gpus: quotas.get(t.name) ?? t.gpus })),
    prefix,
    scenario.scheduler,
  );
}

async function apply(engine: Engine, event: ScenarioEvent, prefix: string): Promise<boolean> {
  if ("submit" in event) {
    await engine.submit({
      name: event.submit,
      team: `${prefix}${event.team}`,
      gpus: event.gpus,
      priority: event.priority ?? DEFAULT_PRIORITY,
      ...(event.elastic ? { elastic: event.elastic } : {}),
    });
    return false;
  }
  if ("delete" in event) {
    await engine.remove(event.delete);
    return false;
  }
  return true;
}

export async function runScenario(engine: Engine, scenario: Scenario, prefix = ""): Promise<void> {
  const quotas = new Map<string, number>();
  await engine.configure(configAfter(scenario, quotas, prefix), capacityOf(scenario));
  for (const [index, step] of scenario.steps.entries()) {
    for (const event of step.events) {
      if (!(await apply(engine, event, prefix)) || !("quota" in event)) continue;
      quotas.set(event.quota, event.gpus);
      await engine.configure(configAfter(scenario, quotas, prefix), capacityOf(scenario));
    }
    const want = wantOf(step);
    const outcome = await engine.settle((seen) => same(viewOf(step, seen, prefix), want));
    expect(viewOf(step, outcome, prefix), `${scenario.name}, step ${index + 1}`).toEqual(want);
  }
}
