import type { ElasticCapacity } from "@/server/cluster/elastic-capacity";
import type { ClusterJob } from "@/server/cluster/types";
import { sizeInUse } from "@/server/domain/elastic/in-use";
import type { Logger } from "@/server/log";
import {
  buildStepWorkload,
  type ElasticStep,
  elasticSteps,
  sizeOf,
  stepPriorityClass,
} from "./elastic-workloads";
import { KUEUE_API_VERSION } from "./names";
import { resolvePriority } from "./priority";
import { assignedFlavor, conditionOf, isTrue, queueOf, type WorkloadObject, workloadName } from "./workload";
import type { KueueWorkloads } from "./workload-client";

/**
 * ElasticCapacity through Kueue (docs/hyperpod-compatibility.md, "Elastic training"): each allowed size above
 * an elastic job's minimum is one extra Workload (elastic-workloads.ts), created when the operator asks for
 * that size and deleted when it gives it back. Kueue admits each step on its own, and preempts each on its
 * own: an evicted step is the job's new, smaller admitted size (its base and the steps below stay admitted).
 * Everything is read from the Workload cache on each call, keyed by the job's uid, so the operator may ask
 * again after a restart.
 *
 * A step Kueue evicts before the job uses it (above sizeInUse: no pod runs on it) has nothing to stop and no
 * job to suspend, so nothing would ever give its quota back: it is not reported as preempted, and the next
 * request deletes it (and the unused steps above it) and asks for it again (a new Workload, queued behind
 * what preempted it). Steps are asked for one at a time, each once the one below is admitted.
 */
export type KueueElastic = ElasticCapacity & {
  /** Deletes every step the job holds (the job finished, was deleted, or was evicted as a whole). */
  releaseAll(job: ClusterJob): Promise<void>;
};

const evicted = (workload: WorkloadObject): boolean => conditionOf(workload, "Evicted")?.status === "True";
const stepAdmitted = (workload: WorkloadObject | undefined): boolean =>
  workload !== undefined && isTrue(workload, "Admitted") && !evicted(workload);

export function createKueueElastic(opts: {
  workloads: KueueWorkloads;
  log: Logger;
  /** Resolves once the Workload caches are synced (the gate's start). */
  ready: () => Promise<void>;
}): KueueElastic {
  const { workloads, log, ready } = opts;

  /** The job's step Workloads (this run's: owner uid) by size. */
  const held = (job: ClusterJob): Map<number, WorkloadObject> => {
    const out = new Map<number, WorkloadObject>();
    for (const workload of workloads.ownedBy(job.ref.namespace, job.ref.name)) {
      const size = sizeOf(workload);
      const mine = workload.metadata.ownerReferences?.some((owner) => owner.uid === job.uid);
      if (size !== null && mine && !workload.metadata.deletionTimestamp) out.set(size, workload);
    }
    return out;
  };

  /** The node labels of the flavor the job's own Workload holds (none: not admitted, or a plain flavor). */
  const baseNodeLabels = (job: ClusterJob): Record<string, string> => {
    const base = workloads.get(job.ref.namespace, workloadName({ name: job.ref.name, uid: job.uid }));
    const flavor = base && isTrue(base, "Admitted") ? assignedFlavor(base) : null;
    return (flavor && workloads.flavor(flavor)?.spec?.nodeLabels) || {};
  };

  const minOf = (job: ClusterJob): number => job.object.spec.elasticPolicy?.minReplicas ?? 0;

  const admitted = (job: ClusterJob): number => {
    if (!queueOf(job)) return Math.max(minOf(job), ...elasticSteps(job).map((step) => step.size));
    const steps = held(job);
    let size = minOf(job);
    for (const step of elasticSteps(job)) {
      const workload = steps.get(step.size);
      if (!workload || !stepAdmitted(workload)) break;
      size = step.size;
    }
    return size;
  };

  const create = async (job: ClusterJob, step: ElasticStep, queueName: string): Promise<void> => {
    const classes = workloads.priorityClasses();
    const resolved = resolvePriority(classes, stepPriorityClass(job, step));
    if (!resolved.ok) {
      log.warn("elastic step not requested", {
        job: `${job.ref.namespace}/${job.ref.name}`,
        reason: resolved.message,
      });
      return; // the step stays missing: the job stays at the size it has
    }
    const workload = buildStepWorkload(job, step, {
      queueName,
      priority: resolved.priority,
      nodeSelector: baseNodeLabels(job),
    });
    try {
      await workloads.create(workload);
    } catch (error) {
      if ((error as { code?: number })?.code !== 409) throw error;
    }
    log.info("kueue elastic step requested", {
      job: `${job.ref.namespace}/${job.ref.name}`,
      workload: workload.metadata.name,
      size: step.size,
    });
  };

  /**
   * Steps to ask for again: from the lowest step evicted above the size the job's pods exist for, it and
   * every step above it (none of them used). A step above kept admitted would hold GPUs the job cannot use
   * without the one below, and could keep that one from being admitted again.
   */
  const toAskAgain = (job: ClusterJob): [number, WorkloadObject][] => {
    const inUse = sizeInUse(job.status, minOf(job));
    const unused = [...held(job)].filter(([size]) => size > inUse);
    const lowest = Math.min(...unused.filter(([, workload]) => evicted(workload)).map(([size]) => size));
    return unused.filter(([size]) => size >= lowest);
  };

  /** Deletes the steps to ask for again (toAskAgain); request then creates them anew, in order. */
  const giveBackUnused = async (job: ClusterJob): Promise<void> => {
    for (const [size, workload] of toAskAgain(job)) {
      await workloads.remove(workload);
      log.info("kueue elastic step preempted before use: asked for again", {
        job: `${job.ref.namespace}/${job.ref.name}`,
        workload: workload.metadata.name,
        size,
      });
    }
  };

  const removeAbove = async (job: ClusterJob, toReplicas: number): Promise<void> => {
    await ready();
    for (const [size, workload] of held(job)) {
      if (size <= toReplicas) continue;
      await workloads.remove(workload);
      log.info("kueue elastic step released", {
        job: `${job.ref.namespace}/${job.ref.name}`,
        workload: workload.metadata.name,
        size,
      });
    }
  };

  return {
    async request(job, toReplicas) {
      const queueName = queueOf(job);
      if (!queueName) return "admitted"; // not governed: HyperPod without Kueue creates the pods directly
      await ready();
      await giveBackUnused(job);
      // In order, the next once the one below is admitted: Kueue orders Workloads created in the same second
      // arbitrarily, and a higher step admitted first would hold GPUs that the lower one then waits for.
      const steps = held(job);
      const wanted = elasticSteps(job).filter((step) => step.size <= toReplicas);
      const next = wanted.find((step) => !stepAdmitted(steps.get(step.size)));
      if (next === undefined) return "admitted";
      if (!steps.has(next.size)) await create(job, next, queueName);
      return "pending";
    },
    release: removeAbove,
    preempted(job) {
      const inUse = sizeInUse(job.status, minOf(job));
      for (const [size, workload] of held(job)) if (size <= inUse && evicted(workload)) return admitted(job);
      return null;
    },
    admitted,
    workloadRef(job) {
      if (!queueOf(job)) return null;
      const name = workloadName({ name: job.ref.name, uid: job.uid });
      return { apiVersion: KUEUE_API_VERSION, kind: "Workload", namespace: job.ref.namespace, name };
    },
    releaseAll: (job) => removeAbove(job, 0),
  };
}
