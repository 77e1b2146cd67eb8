import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { allowedSizes, largestAllowedAtMost, replicasBySpec } from "./sizes";

/**
 * An elastic job at a world size: the same job with each replica spec's `replicas` set to its share of the
 * size (replicasBySpec), so that everything downstream (the pods expected, `nnodes` at /start, the NNODES of
 * pods made now, what governance counts) sees the job as it runs now. A job without an elasticPolicy is
 * returned unchanged.
 */

export function isElastic(job: HyperPodPyTorchJob): boolean {
  return job.spec.elasticPolicy !== undefined;
}

export function sizesOf(job: HyperPodPyTorchJob): number[] {
  const policy = job.spec.elasticPolicy;
  return policy ? allowedSizes(policy) : [totalReplicas(job)];
}

export function totalReplicas(job: HyperPodPyTorchJob): number {
  return job.spec.replicaSpecs.reduce((sum, spec) => sum + spec.replicas, 0);
}

export function jobAtSize(job: HyperPodPyTorchJob, size: number): HyperPodPyTorchJob {
  const policy = job.spec.elasticPolicy;
  if (!policy) return job;
  const spread = replicasBySpec(job.spec.replicaSpecs, size, policy.maxReplicas);
  const replicaSpecs = job.spec.replicaSpecs.map((spec) => ({ ...spec, replicas: spread[spec.name] ?? 0 }));
  return { ...job, spec: { ...job.spec, replicaSpecs } };
}

/** The job at minReplicas: what its own admission (its base Workload) covers. */
export function jobAtMinimum(job: HyperPodPyTorchJob): HyperPodPyTorchJob {
  const policy = job.spec.elasticPolicy;
  return policy ? jobAtSize(job, policy.minReplicas) : job;
}

/**
 * The size an elastic job starts at: its replica specs' `replicas` (HyperPod: "Initial replica count"), as
 * the largest allowed size not above it (minReplicas when it is below every size).
 */
export function initialSize(job: HyperPodPyTorchJob): number {
  const sizes = sizesOf(job);
  return largestAllowedAtMost(sizes, totalReplicas(job)) ?? sizes[0] ?? totalReplicas(job);
}
