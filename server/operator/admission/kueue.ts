import { createKueueElastic, type KueueElastic } from "@/server/cluster/kubernetes/kueue/elastic-capacity";
import { basePriorityClass } from "@/server/cluster/kubernetes/kueue/elastic-workloads";
import { resolvePriority } from "@/server/cluster/kubernetes/kueue/priority";
import {
  assignedFlavor,
  buildWorkload,
  conditionOf,
  finishedCondition,
  hasReservation,
  isTrue,
  preemptorUid,
  priorityClassLabelOf,
  queueOf,
  requeuedConditions,
  type WorkloadObject,
  workloadName,
} from "@/server/cluster/kubernetes/kueue/workload";
import type { KueueWorkloads } from "@/server/cluster/kubernetes/kueue/workload-client";
import type { ClusterJob } from "@/server/cluster/types";
import type { LiveAdmission } from "@/server/domain/operator-api/contract";
import type { Logger } from "@/server/log";
import type { AdmissionGate, AdmissionVerdict } from "./types";

/**
 * Admission by the real Kueue: the operator is Kueue's external framework for HyperPodPyTorchJob (Kueue's
 * Configuration lists `HyperPodPyTorchJob.v1.sagemaker.amazonaws.com` in integrations.externalFrameworks), so
 * it does for its jobs what Kueue's jobframework does for the built-in ones: one Workload per governed job,
 * owned by the job; the job runs only while its Workload is admitted; when Kueue evicts it the job stops,
 * and once its pods are gone the Workload's reservation is cleared so it queues again; a finished or
 * deleted job's Workload is finished and removed. Kueue decides; this only follows its conditions.
 */
export type KueueGateOptions = {
  /** createKueueWorkloads(...) from server/cluster/kubernetes/kueue/workload-client. */
  workloads: KueueWorkloads;
  log: Logger;
  /** Clock for condition times (tests); default Date.now. */
  now?: () => number;
  /** The Postgres → Kueue sync loop (startKueueSync), stopped with the gate. */
  sync?: { stop(): Promise<void> };
};

const NOT_GOVERNED: AdmissionVerdict = { state: "NotGoverned" };

const ownedBy = (workload: WorkloadObject | undefined, job: ClusterJob): WorkloadObject | undefined =>
  workload?.metadata.ownerReferences?.some((owner) => owner.uid === job.uid) ? workload : undefined;

const since = (workload: WorkloadObject, type: string): number =>
  Date.parse(conditionOf(workload, type)?.lastTransitionTime ?? "") || 0;

/** The gate, with the optional members of AdmissionGate that the controller uses. */
export type KueueGate = AdmissionGate & {
  /** Elastic jobs' steps: one extra Workload per allowed size above the minimum. */
  elastic: KueueElastic;
  /** The job is gone without a last reconcile: its Workloads go too (no garbage collector needed). */
  forget(key: string): void;
  /** Calls `listener` with a job's key whenever its Workload changes (Kueue admitted or evicted it). */
  onWake(listener: (key: string) => void): () => void;
};

export function createKueueGate(opts: KueueGateOptions): KueueGate {
  const { workloads, log } = opts;
  const clock = opts.now ?? Date.now;
  let started: Promise<void> | undefined;
  const ready = () => {
    started ??= workloads.start();
    return started;
  };
  const find = (job: ClusterJob) =>
    ownedBy(workloads.get(job.ref.namespace, workloadName({ name: job.ref.name, uid: job.uid })), job);

  /** The owning job (`<namespace>/<name>`) of the Workload with this UID, from Kueue's preemption message. */
  const preemptor = (message: string): string | null => {
    const uid = preemptorUid(message);
    const by = uid ? workloads.byUid(uid) : undefined;
    const owner = by?.metadata.ownerReferences?.find((ref) => ref.controller);
    return by && owner ? `${by.metadata.namespace}/${owner.name}` : null;
  };

  const admitted = (workload: WorkloadObject): AdmissionVerdict => {
    const flavor = assignedFlavor(workload);
    const nodeSelector = (flavor && workloads.flavor(flavor)?.spec?.nodeLabels) || {};
    return { state: "Admitted", flavor, nodeSelector };
  };

  const pending = (workload: WorkloadObject): AdmissionVerdict => {
    const reserved = conditionOf(workload, "QuotaReserved");
    return {
      state: "Pending",
      reason: reserved?.reason ?? "Pending",
      message: reserved?.message ?? `waiting for Kueue to admit Workload ${workload.metadata.name}`,
    };
  };

  const verdictOf = (workload: WorkloadObject): AdmissionVerdict => {
    const evicted = conditionOf(workload, "Evicted");
    if (evicted?.status === "True" && hasReservation(workload)) {
      const preempted = conditionOf(workload, "Preempted");
      const cause = preempted?.status === "True" ? preempted : evicted;
      return { state: "Evicted", reason: cause.reason, message: cause.message, by: preemptor(cause.message) };
    }
    return isTrue(workload, "Admitted") ? admitted(workload) : pending(workload);
  };

  /**
   * The WorkloadPriorityClass named by the job's label (an elastic job's: its label, else its first
   * replica spec's, elastic-workloads.ts); an unknown one is refused
   * (docs/hyperpod-compatibility.md, "Submission rules").
   */
  const priorityOf = (job: ClusterJob) => {
    const className = job.object.spec.elasticPolicy ? basePriorityClass(job) : priorityClassLabelOf(job);
    return resolvePriority(workloads.priorityClasses(), className);
  };
  const elastic = createKueueElastic({ workloads, log, ready });

  const create = async (job: ClusterJob, queueName: string): Promise<AdmissionVerdict> => {
    const priority = priorityOf(job);
    if (!priority.ok) return { state: "Pending", reason: "UnknownPriorityClass", message: priority.message };
    const workload = buildWorkload(job, { queueName, priority: priority.priority });
    try {
      await workloads.create(workload);
    } catch (error) {
      if ((error as { code?: number })?.code !== 409) throw error;
    }
    log.info("kueue workload created", {
      job: `${job.ref.namespace}/${job.ref.name}`,
      workload: workload.metadata.name,
    });
    return {
      state: "Pending",
      reason: "Created",
      message: `Workload ${workload.metadata.name} created, queued in ${queueName}`,
    };
  };

  return {
    async verdict(job) {
      const queueName = queueOf(job);
      if (!queueName) return NOT_GOVERNED;
      await ready();
      const workload = find(job);
      if (!workload) return job.deleting ? pendingDeleted : create(job, queueName);
      return verdictOf(workload);
    },
    async requeue(job) {
      await ready();
      const workload = find(job);
      const conditions = workload ? requeuedConditions(workload, new Date(clock())) : null;
      if (workload && conditions) await workloads.clearAdmission(workload, conditions);
      await elastic.releaseAll(job); // the whole job stopped: it starts again at its minimum size
    },
    async release(job) {
      await ready();
      await elastic.releaseAll(job);
      const workload = find(job);
      if (!workload) return;
      if (!isTrue(workload, "Finished")) {
        await workloads.setCondition(workload, finishedCondition(job, workload, new Date(clock())));
      }
      await workloads.remove(workload);
    },
    describe(job) {
      if (!queueOf(job)) return null;
      const workload = find(job);
      return workload ? describeWorkload(workload, preemptor) : null;
    },
    forget(key) {
      const slash = key.indexOf("/");
      for (const workload of workloads.ownedBy(key.slice(0, slash), key.slice(slash + 1))) {
        workloads.remove(workload).catch((error: unknown) => {
          log.warn("removing a deleted job's Workload failed", {
            workload: workload.metadata.name,
            error: String(error),
          });
        });
      }
    },
    onWake: (listener) => workloads.onChange(listener),
    elastic,
    async dispose() {
      await opts.sync?.stop();
      workloads.stop();
    },
  };
}

const pendingDeleted: AdmissionVerdict = {
  state: "Pending",
  reason: "Deleting",
  message: "the job is being deleted",
};

/** The console's view of a Workload (LiveAdmission). */
export function describeWorkload(
  workload: WorkloadObject,
  preemptor: (message: string) => string | null,
): LiveAdmission {
  const evicted = conditionOf(workload, "Evicted");
  const preempted = conditionOf(workload, "Preempted");
  const flavor = assignedFlavor(workload);
  if (evicted?.status === "True") {
    const cause = preempted?.status === "True" ? preempted : evicted;
    return {
      state: hasReservation(workload) ? "Preempting" : "Preempted",
      reason: cause.reason,
      message: cause.message,
      since: since(workload, "Evicted"),
      preemptedBy: preemptor(cause.message),
      flavor,
    };
  }
  if (isTrue(workload, "Admitted")) {
    const admittedAt = since(workload, "Admitted");
    return {
      state: "Admitted",
      reason: "Admitted",
      message: "",
      since: admittedAt,
      preemptedBy: null,
      flavor,
    };
  }
  const reserved = conditionOf(workload, "QuotaReserved");
  return {
    state: "Pending",
    reason: reserved?.reason ?? "Pending",
    message: reserved?.message ?? "",
    since: since(workload, "QuotaReserved") || Date.parse(workload.metadata.creationTimestamp ?? "") || 0,
    preemptedBy: null,
    flavor: null,
  };
}
