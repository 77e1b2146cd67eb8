import type { GovernedJob, Workload } from "@/server/domain/governance";
import { PRIORITY_CLASS_LABEL, workloadOf } from "@/server/domain/governance";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { jobAtMinimum } from "./sized-job";
import { replicasBySpec, stepPods } from "./sizes";

/**
 * What governance counts for an elastic job (docs/hyperpod-compatibility.md, "Submission rules": "the
 * operator first requests minimum required resources with high priority, then incrementally requests
 * additional capacity with lower priority"): its base Workload at minReplicas, and one Workload per scaling
 * step above it.
 */

type Spec = HyperPodPyTorchJob["spec"]["replicaSpecs"][number];

/** A replica spec's priority class label: its template's label, else its pod's priorityClassName, else the job's. */
export function specPriorityLabel(job: HyperPodPyTorchJob, spec: Spec): string | undefined {
  const own = spec.template.metadata?.labels?.[PRIORITY_CLASS_LABEL];
  if (own) return own;
  const podClass = (spec.template.spec as { priorityClassName?: unknown }).priorityClassName;
  if (typeof podClass === "string" && podClass !== "") return podClass;
  return job.metadata.labels?.[PRIORITY_CLASS_LABEL];
}

function withPriority(job: HyperPodPyTorchJob, label: string | undefined): GovernedJob {
  if (label === undefined) return job;
  return {
    ...job,
    metadata: { ...job.metadata, labels: { ...job.metadata.labels, [PRIORITY_CLASS_LABEL]: label } },
  };
}

/** The base Workload: the job at minReplicas, at the job's priority class (else its first replica spec's). */
export function baseWorkload(job: HyperPodPyTorchJob, opts: { team: string; createdAt: number }): Workload {
  const atMin = jobAtMinimum(job);
  const first = job.spec.replicaSpecs[0];
  const label =
    job.metadata.labels?.[PRIORITY_CLASS_LABEL] ?? (first ? specPriorityLabel(job, first) : undefined);
  return workloadOf(withPriority(atMin, label), opts);
}

/**
 * The Workload of the step that takes the job from `from` to `to` (allowed sizes, from < to): the pods it adds,
 * at the priority class of the replica spec its last pod belongs to. Its key is `<namespace>/<name>#<to>`.
 */
export function stepWorkload(
  job: HyperPodPyTorchJob,
  opts: { from: number; to: number; team: string; createdAt: number },
): Workload {
  const policy = job.spec.elasticPolicy;
  const policyMax = policy?.maxReplicas ?? opts.to;
  const added = stepPods({ specs: job.spec.replicaSpecs, from: opts.from, to: opts.to, policyMax });
  const replicaSpecs = job.spec.replicaSpecs.map((spec) => ({
    ...spec,
    replicas: added[spec.name] ?? 0,
    spares: 0,
  }));
  const atTo = replicasBySpec(job.spec.replicaSpecs, opts.to, policyMax);
  const last = [...job.spec.replicaSpecs].reverse().find((spec) => (atTo[spec.name] ?? 0) > 0);
  const label = last ? specPriorityLabel(job, last) : job.metadata.labels?.[PRIORITY_CLASS_LABEL];
  const stepJob = { ...job, spec: { ...job.spec, replicaSpecs } };
  const workload = workloadOf(withPriority(stepJob, label), opts);
  return { ...workload, key: `${workload.key}#${opts.to}` };
}
