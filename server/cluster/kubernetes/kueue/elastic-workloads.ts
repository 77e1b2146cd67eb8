import type { ClusterJob } from "@/server/cluster/types";
import { allowedSizes, replicasBySpec, stepPods } from "@/server/domain/elastic/sizes";
import { specPriorityLabel } from "@/server/domain/elastic/step-workload";
import { JOB_API_VERSION, JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import type { ReplicaSpec } from "@/server/domain/job-spec/replica-spec.schema";
import { KUEUE_API_VERSION, LABEL_PRIORITY_CLASS } from "./names";
import { LABEL_JOB_UID, WORKLOAD_FINALIZER, type WorkloadObject, workloadName } from "./workload";

/**
 * An elastic job's Kueue Workloads (docs/hyperpod-compatibility.md, "Elastic training"): the job's own
 * Workload (Kueue's name) holds its minimum size, and each allowed size above it is one more Workload (a
 * step: the pods that size adds to the one below), created when the operator asks to grow and deleted when it
 * shrinks. Kueue admits and preempts each on its own, so a preempted step is the job's next smaller size
 * while its base stays admitted. Each Workload carries the priority class of the replica spec its pods belong
 * to, so with the partial-preemption shape (a `base` and an `elastic` spec, "the operator first requests
 * minimum required resources with high priority, then incrementally requests additional capacity with lower
 * priority", docs/hyperpod-compatibility.md, "Submission rules") Kueue takes the elastic steps first. Pure:
 * no I/O.
 */
export const LABEL_ELASTIC_SIZE = "rebound.dev/elastic-size";
const PRIORITY_SOURCE = "kueue.x-k8s.io/workloadpriorityclass";
const MAX_NAME = 253;

type ElasticJob = Pick<ClusterJob, "ref" | "uid" | "object">;
export type WorkloadPriority = { className: string; value: number } | null;
type PodSet = WorkloadObject["spec"]["podSets"][number];

/** A step: the Workload that takes the job from the allowed size `from` to the next one, `size`. */
export type ElasticStep = { size: number; from: number; pods: Record<string, number> };

/** The job's steps, ascending (one per allowed size above minReplicas); [] when it is not elastic. */
export function elasticSteps(job: ElasticJob): ElasticStep[] {
  const policy = job.object.spec.elasticPolicy;
  if (!policy) return [];
  const specs = job.object.spec.replicaSpecs;
  const sizes = allowedSizes(policy);
  return sizes.slice(1).map((size, index) => {
    const from = sizes[index] ?? policy.minReplicas;
    return { size, from, pods: stepPods({ specs, from, to: size, policyMax: policy.maxReplicas }) };
  });
}

/** The step Workload's name: the job's Workload name (Kueue's) and `-<size>`, within 253 characters. */
export function stepWorkloadName(job: { name: string; uid: string }, size: number): string {
  const base = workloadName(job);
  const suffix = `-${size}`;
  if (base.length + suffix.length <= MAX_NAME) return `${base}${suffix}`;
  const hash = base.slice(base.lastIndexOf("-"));
  return `${base.slice(0, MAX_NAME - suffix.length - hash.length)}${hash}${suffix}`;
}

/** The size a step Workload holds (its label); null for the job's own Workload. */
export function sizeOf(workload: WorkloadObject): number | null {
  const value = Number(workload.metadata.labels?.[LABEL_ELASTIC_SIZE] ?? Number.NaN);
  return Number.isInteger(value) && value > 0 ? value : null;
}

/**
 * A replica spec's priority class (a WorkloadPriorityClass name): its pod template's
 * `kueue.x-k8s.io/priority-class` label, else its pod spec's `priorityClassName`, else the job's label; the
 * rule the local admission counts by (server/domain/elastic/step-workload.ts).
 */
export const specPriorityClass = (job: ElasticJob, spec: ReplicaSpec): string | null =>
  specPriorityLabel(job.object, spec) || null;

/**
 * The priority class of the job's own Workload when elastic: the job's label, else its first replica spec's
 * (as the local admission counts it, server/domain/elastic/step-workload.ts).
 */
export function basePriorityClass(job: ElasticJob): string | null {
  const first = job.object.spec.replicaSpecs[0];
  return job.object.metadata.labels?.[LABEL_PRIORITY_CLASS] || (first ? specPriorityClass(job, first) : null);
}

/**
 * The priority class of a step: that of the last replica spec holding pods at the step's size (with the
 * partial-preemption shape, the `elastic` spec's), so the steps go before the base.
 */
export function stepPriorityClass(job: ElasticJob, step: ElasticStep): string | null {
  const policy = job.object.spec.elasticPolicy;
  const specs = job.object.spec.replicaSpecs;
  const atSize = replicasBySpec(specs, step.size, policy?.maxReplicas ?? step.size);
  const last = [...specs].reverse().find((spec) => (atSize[spec.name] ?? 0) > 0);
  return last ? specPriorityClass(job, last) : job.object.metadata.labels?.[LABEL_PRIORITY_CLASS] || null;
}

/**
 * A step's Workload priority: one below its class's value ("the operator first requests minimum required
 * resources with high priority, then incrementally requests additional capacity with lower priority",
 * docs/hyperpod-compatibility.md, "Submission rules"). So Kueue takes a job's steps before its own Workload
 * whatever their admission times (it orders preemption candidates by priority, then by most recently
 * admitted, then by UID), and a job of the same class waiting for its minimum may take them back
 * (withinClusterQueue: LowerPriority), as it may not take any job's minimum. The class's name is kept.
 */
export const STEP_PRIORITY_BELOW_CLASS = 1;

const stepPriorityFields = (priority: WorkloadPriority) =>
  priority
    ? {
        priorityClassName: priority.className,
        priorityClassSource: PRIORITY_SOURCE,
        priority: priority.value - STEP_PRIORITY_BELOW_CLASS,
      }
    : { priority: -STEP_PRIORITY_BELOW_CLASS };

/**
 * The pod sets of `pods`, one per replica spec with pods, in the specs' order; `nodeSelector` is added to
 * each template (a step pinned to the flavor its job's own Workload was given).
 */
function podSetsOf(
  job: ElasticJob,
  pods: Record<string, number>,
  nodeSelector: Record<string, string>,
): PodSet[] {
  return job.object.spec.replicaSpecs
    .filter((spec) => (pods[spec.name] ?? 0) > 0)
    .map((spec) => ({
      name: spec.name, // a DNS label already (the job's schema), as a pod set name must be
      count: pods[spec.name] ?? 0,
      template: withNodeSelector(spec.template as Record<string, unknown>, nodeSelector),
    }));
}

function withNodeSelector(template: Record<string, unknown>, nodeSelector: Record<string, string>) {
  if (Object.keys(nodeSelector).length === 0) return template;
  const spec = (template.spec ?? {}) as Record<string, unknown>;
  const own = (spec.nodeSelector ?? {}) as Record<string, string>;
  return { ...template, spec: { ...spec, nodeSelector: { ...own, ...nodeSelector } } };
}

export function buildStepWorkload(
  job: ElasticJob,
  step: ElasticStep,
  opts: {
    queueName: string;
    priority: WorkloadPriority;
    /**
     * The node labels of the flavor the job's own Workload was admitted on: Kueue gives a pod set only a
     * flavor whose node labels its pods' node selector matches, so every step lands on the job's instance
     * type (one job, one flavor, as governance assigns) rather than on the next flavor with room.
     */
    nodeSelector?: Record<string, string>;
  },
): WorkloadObject {
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: "Workload",
    metadata: {
      name: stepWorkloadName({ name: job.ref.name, uid: job.uid }, step.size),
      namespace: job.ref.namespace,
      labels: { [LABEL_JOB_UID]: job.uid, [LABEL_ELASTIC_SIZE]: String(step.size) },
      finalizers: [WORKLOAD_FINALIZER],
      ownerReferences: [
        { apiVersion: JOB_API_VERSION, kind: JOB_KIND, name: job.ref.name, uid: job.uid, controller: true },
      ],
    },
    spec: {
      queueName: opts.queueName,
      ...stepPriorityFields(opts.priority),
      podSets: podSetsOf(job, step.pods, opts.nodeSelector ?? {}),
    },
  };
}
