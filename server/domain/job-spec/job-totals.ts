import type { HyperPodPyTorchJob } from "./job-spec.schema";
import type { Container, ReplicaSpec } from "./replica-spec.schema";

export const GPU_RESOURCE = "nvidia.com/gpu";

export type ReplicaSpecTotals = { name: string; replicas: number; spares: number; gpusPerPod: number };

export type JobTotals = {
  /** Sum of `replicas` over all replica specs (one pod per node). Spares are not included. */
  nodes: number;
  spareNodes: number;
  /** `nprocPerNode` when it is a number; null for "auto", "cpu" and "gpu". */
  ranksPerNode: number | null;
  /** nodes × ranksPerNode, or null when ranksPerNode is not numeric. */
  ranks: number | null;
  /** GPUs each pod requests, when every replica spec requests the same number; otherwise null. */
  gpusPerPod: number | null;
  /** GPUs requested by all running (non-spare) pods. */
  gpus: number;
  replicaSpecs: ReplicaSpecTotals[];
};

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Whole-number quantity ("8" or 8); anything else counts as 0. */
function parseCount(value: unknown): number {
  if (typeof value === "number") return Number.isInteger(value) && value > 0 ? value : 0;
  return typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0;
}

/** GPUs of one container: limits win (Kubernetes defaults requests to limits for extended resources). */
function containerGpus(container: Container): number {
  const resources = asRecord(container.resources);
  const limits = asRecord(resources?.limits);
  const requests = asRecord(resources?.requests);
  return parseCount(limits?.[GPU_RESOURCE] ?? requests?.[GPU_RESOURCE]);
}

/** GPUs one pod of a replica spec requests: the sum over its (non-init) containers. */
export function podGpus(spec: ReplicaSpec): number {
  return spec.template.spec.containers.reduce((sum, container) => sum + containerGpus(container), 0);
}

export function jobTotals(job: HyperPodPyTorchJob): JobTotals {
  const replicaSpecs = job.spec.replicaSpecs.map((spec) => ({
    name: spec.name,
    replicas: spec.replicas,
    spares: spec.spares,
    gpusPerPod: podGpus(spec),
  }));
  const nodes = replicaSpecs.reduce((sum, spec) => sum + spec.replicas, 0);
  const ranksPerNode = /^\d+$/.test(job.spec.nprocPerNode) ? Number(job.spec.nprocPerNode) : null;
  const distinctGpus = new Set(replicaSpecs.map((spec) => spec.gpusPerPod));
  const [onlyGpus] = distinctGpus;
  return {
    nodes,
    spareNodes: replicaSpecs.reduce((sum, spec) => sum + spec.spares, 0),
    ranksPerNode,
    ranks: ranksPerNode === null ? null : nodes * ranksPerNode,
    gpusPerPod: distinctGpus.size === 1 && onlyGpus !== undefined ? onlyGpus : null,
    gpus: replicaSpecs.reduce((sum, spec) => sum + spec.replicas * spec.gpusPerPod, 0),
    replicaSpecs,
  };
}
