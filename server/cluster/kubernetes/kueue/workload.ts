import { createHash } from "node:crypto";
import type { ClusterJob } from "@/server/cluster/types";
import { replicasBySpec } from "@/server/domain/elastic/sizes";
import { JOB_API_VERSION, JOB_GROUP, JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import {
  KUEUE_API_VERSION,
  LABEL_PRIORITY_CLASS,
  LABEL_QUEUE_NAME,
  localQueueName,
  teamOfNamespaceName,
} from "./names";

/**
 * A HyperPodPyTorchJob's Kueue Workload, built as Kueue's jobframework builds one for the jobs it integrates
 * (pkg/controller/jobframework: ConstructWorkload, workload_names.go), and read back as conditions (pkg/workload).
 * Pure: no I/O.
 */
export const WORKLOAD_FINALIZER = "kueue.x-k8s.io/resource-in-use";
export const LABEL_JOB_UID = "kueue.x-k8s.io/job-uid";
const PRIORITY_SOURCE = "kueue.x-k8s.io/workloadpriorityclass";
const HASH_LENGTH = 5;
const MAX_PREFIX = 252 - HASH_LENGTH;

export type Condition = {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
};

export type PodSetAssignment = { name: string; flavors?: Record<string, string>; count?: number };

export type WorkloadObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "Workload";
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
  };
  spec: {
    queueName: string;
    priorityClassName?: string;
    priorityClassSource?: string;
    priority?: number;
    podSets: Array<{ name: string; count: number; template: Record<string, unknown> }>;
  };
  status?: {
    conditions?: Condition[];
    admission?: { clusterQueue: string; podSetAssignments: PodSetAssignment[] } | null;
  };
};

/** `hyperpodpytorchjob-<job>-<hash>`: Kueue's name for the Workload of a job (same hash, so names agree). */
export function workloadName(job: { name: string; uid: string }): string {
  const hash = createHash("sha1")
    .update(`${JOB_KIND}\n${JOB_GROUP}\n${job.name}\n${job.uid}`)
    .digest("hex")
    .slice(0, HASH_LENGTH);
  return `${`${JOB_KIND.toLowerCase()}-${job.name}`.slice(0, MAX_PREFIX)}-${hash}`;
}

/**
 * The job's queue: its `kueue.x-k8s.io/queue-name` label, else its team's LocalQueue when it is in a team
 * namespace (`hyperpod-ns-<team>`); null: not governed.
 */
export function queueOf(job: ClusterJob): string | null {
  const label = job.object.metadata.labels?.[LABEL_QUEUE_NAME];
  if (label) return label;
  const team = teamOfNamespaceName(job.ref.namespace);
  return team ? localQueueName(team) : null;
}

export const priorityClassLabelOf = (job: ClusterJob): string | null =>
  job.object.metadata.labels?.[LABEL_PRIORITY_CLASS] || null;

/**
 * The pods of the job's own Workload, per replica spec: replicas + spares; for an elastic job its minimum
 * size spread over the specs (server/domain/elastic/sizes) + spares, the steps above it being Workloads of
 * their own (elastic-workloads.ts).
 */
export function basePods(job: Pick<ClusterJob, "object">): Record<string, number> {
  const policy = job.object.spec.elasticPolicy;
  const specs = job.object.spec.replicaSpecs;
  const spread = policy ? replicasBySpec(specs, policy.minReplicas, policy.maxReplicas) : null;
  return Object.fromEntries(
    specs.map((spec) => [spec.name, (spread ? (spread[spec.name] ?? 0) : spec.replicas) + spec.spares]),
  );
}

export function buildWorkload(
  job: ClusterJob,
  opts: { queueName: string; priority: { className: string; value: number } | null },
): WorkloadObject {
  const pods = basePods(job);
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: "Workload",
    metadata: {
      name: workloadName({ name: job.ref.name, uid: job.uid }),
      namespace: job.ref.namespace,
      labels: { [LABEL_JOB_UID]: job.uid },
      finalizers: [WORKLOAD_FINALIZER],
      ownerReferences: [
        { apiVersion: JOB_API_VERSION, kind: JOB_KIND, name: job.ref.name, uid: job.uid, controller: true },
      ],
    },
    spec: {
      queueName: opts.queueName,
      ...(opts.priority
        ? {
            priorityClassName: opts.priority.className,
            priorityClassSource: PRIORITY_SOURCE,
            priority: opts.priority.value,
          }
        : { priority: 0 }),
      podSets: job.object.spec.replicaSpecs.map((spec) => ({
        name: spec.name, // a DNS label already (the job's schema), as a pod set name must be
        count: pods[spec.name] ?? 0,
        template: spec.template as Record<string, unknown>,
      })),
    },
  };
}

export const conditionOf = (workload: WorkloadObject, type: string): Condition | undefined =>
  workload.status?.conditions?.find((condition) => condition.type === type);

export const isTrue = (workload: WorkloadObject, type: string): boolean =>
  conditionOf(workload, type)?.status === "True";

export const hasReservation = (workload: WorkloadObject): boolean => isTrue(workload, "QuotaReserved");

/** The flavor assigned to the first pod set's resources (one flavor per job, as governance assigns). */
export function assignedFlavor(workload: WorkloadObject): string | null {
  const flavors = workload.status?.admission?.podSetAssignments?.[0]?.flavors ?? {};
  return Object.values(flavors)[0] ?? null;
}

/** The preemptor's Workload UID from Kueue's message "Preempted to accommodate a workload (UID: …, JobUID: …)". */
export function preemptorUid(message: string): string | null {
  return /\(UID: ([^,)]+)/.exec(message)?.[1] ?? null;
}

/**
 * What jobframework does to a stopped job's evicted Workload: Requeued (True after preemption), QuotaReserved
 * False (Pending, the eviction's message), Admitted False (NoReservation), and no admission. Returns the new
 * conditions, or null when there is nothing to clear.
 */
export function requeuedConditions(workload: WorkloadObject, now: Date): Condition[] | null {
  const evicted = conditionOf(workload, "Evicted");
  if (evicted?.status !== "True" || !hasReservation(workload)) return null;
  const at = conditionTime(now);
  const generation = workload.metadata.generation;
  const set = (conditions: Condition[], next: Condition): Condition[] => {
    const old = conditions.find((condition) => condition.type === next.type);
    const changed = old?.status !== next.status;
    const merged = { ...next, lastTransitionTime: changed ? at : (old?.lastTransitionTime ?? at) };
    return [...conditions.filter((condition) => condition.type !== next.type), merged];
  };
  let conditions = workload.status?.conditions ?? [];
  const base = { observedGeneration: generation };
  conditions = set(conditions, {
    ...base,
    type: "Requeued",
    status: evicted.reason === "Preempted" ? "True" : "False",
    reason: evicted.reason,
    message: evicted.message,
  });
  conditions = set(conditions, {
    ...base,
    type: "QuotaReserved",
    status: "False",
    reason: "Pending",
    message: evicted.message,
  });
  if (isTrue(workload, "Admitted")) {
    conditions = set(conditions, {
      ...base,
      type: "Admitted",
      status: "False",
      reason: "NoReservation",
      message: "The workload has no reservation",
    });
  }
  return conditions;
}

/** A condition time as Kubernetes writes it (RFC 3339, seconds). */
export const conditionTime = (now: Date): string => now.toISOString().replace(/\.\d+Z$/, "Z");

const FINISHED_TYPES = new Set(["Completed", "Succeeded", "Failed"]);

/** Finished=True as jobframework sets it: reason Succeeded or Failed (a deleted job's Workload: Succeeded). */
export function finishedCondition(job: ClusterJob, workload: WorkloadObject, now: Date): Condition {
  const conditions = (job.status.conditions ?? []).filter((condition) => condition.status === "True");
  const failed = conditions.some((condition) => condition.type === "Failed");
  const finished = conditions.some((condition) => FINISHED_TYPES.has(condition.type));
  return {
    type: "Finished",
    status: "True",
    reason: failed ? "Failed" : "Succeeded",
    message: finished ? "Job finished" : "Job deleted",
    lastTransitionTime: conditionTime(now),
    observedGeneration: workload.metadata.generation,
  };
}
