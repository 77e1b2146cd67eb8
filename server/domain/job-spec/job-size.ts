import type { HyperPodPyTorchJob } from "./job-spec.schema";
import type { Container, ReplicaSpec } from "./replica-spec.schema";

export const GPU_RESOURCE = "nvidia.com/gpu";

/**
 * torchrun's variable for `--nproc-per-node` (every torchrun flag defaults to `PET_<FLAG>`): the operator
 * sets it to `spec.nprocPerNode` in every pod (server/cluster/pod-env.ts), so a command that names no count
 * runs the spec's (docs/hyperpod-compatibility.md, "Ranks per pod (nprocPerNode)").
 */
export const NPROC_PER_NODE_ENV = "PET_NPROC_PER_NODE";

export type ReplicaSpecSize = { name: string; replicas: number; spares: number; gpusPerPod: number };

export type JobSize = {
  /** Sum of `replicas` over all replica specs (one pod per node). Spares are not included. */
  nodes: number;
  spareNodes: number;
  /**
   * Ranks each pod runs, as far as the manifest tells (see `specRanksPerNode`); null when only the node can
   * tell (a CPU count, GPUs that differ between replica specs, a flag given as a shell variable).
   */
  ranksPerNode: number | null;
  /** nodes × ranksPerNode, or null when ranksPerNode is not numeric. */
  ranks: number | null;
  /** GPUs each pod requests, when every replica spec requests the same number; otherwise null. */
  gpusPerPod: number | null;
  /** GPUs requested by all running (non-spare) pods. */
  gpus: number;
  replicaSpecs: ReplicaSpecSize[];
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

/** The value of the first `--nproc-per-node` / `--nproc_per_node` flag in a container's command and args. */
function commandNproc(container: Container): string | null {
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  const words = [...strings(container.command), ...strings(container.args)].join(" ");
  const match = /--nproc[-_]per[-_]node(?:=|\s+)["']?([^\s"']+)/.exec(words);
  return match?.[1] ?? null;
}

/** The `--nproc-per-node` a job's containers give their launcher, if any does. */
export function commandNprocPerNode(job: HyperPodPyTorchJob): string | null {
  for (const spec of job.spec.replicaSpecs) {
    for (const container of spec.template.spec.containers) {
      const value = commandNproc(container);
      if (value !== null) return value;
    }
  }
  return null;
}

/** The literal `PET_NPROC_PER_NODE` in a container's own `env`, if it sets one. */
function containerNprocEnv(container: Container): string | null {
  const env: unknown[] = Array.isArray(container.env) ? container.env : [];
  const entry = env.map(asRecord).find((item) => item?.name === NPROC_PER_NODE_ENV);
  return typeof entry?.value === "string" ? entry.value : null;
}

/** The `PET_NPROC_PER_NODE` a container's own `env` sets (it wins over the operator's), if any does. */
export function containerEnvNprocPerNode(job: HyperPodPyTorchJob): string | null {
  const containers = job.spec.replicaSpecs.flatMap((spec) => spec.template.spec.containers);
  return containers.map(containerNprocEnv).find((value) => value !== null) ?? null;
}

/**
 * torchrun's reading of an nproc-per-node value (`determine_local_world_size`): a number is itself; "gpu"
 * is the node's GPU count; "auto" is the GPU count when there are GPUs, else the CPU count; "cpu" is the CPU
 * count. A pod's GPUs are known from its requests; a CPU count is not (null).
 */
export function resolveNprocPerNode(value: string, gpusPerPod: number | null): number | null {
  if (/^\d+$/.test(value)) return Number(value) > 0 ? Number(value) : null;
  if (value === "gpu" || value === "auto") return gpusPerPod !== null && gpusPerPod > 0 ? gpusPerPod : null;
  return null;
}

/**
 * The nproc-per-node the launcher runs with, as hyperpodrun's torchrun parser picks it: the container
 * command's `--nproc-per-node` flag wins; without one the flag's default is `PET_NPROC_PER_NODE`, which the
 * operator sets to `spec.nprocPerNode` unless the container's own `env` sets it. A flag given as a shell
 * variable (`$N`) cannot be read here: the variable, then the spec, stand in for it.
 */
export function effectiveNprocPerNode(job: HyperPodPyTorchJob): string {
  const flag = commandNprocPerNode(job);
  if (flag !== null && !flag.startsWith("$")) return flag;
  return containerEnvNprocPerNode(job) ?? job.spec.nprocPerNode;
}

/**
 * Ranks per pod from the manifest (`effectiveNprocPerNode`: the command's flag, else the spec's value the
 * pods get as PET_NPROC_PER_NODE), read as torchrun reads it: auto, cpu, gpu or a number. What the agents
 * report once they run corrects this (server/operator/reconcilers/ranks.ts).
 */
export function specRanksPerNode(job: HyperPodPyTorchJob, gpusPerPod: number | null): number | null {
  return resolveNprocPerNode(effectiveNprocPerNode(job), gpusPerPod);
}

export function jobSize(job: HyperPodPyTorchJob): JobSize {
  const replicaSpecs = job.spec.replicaSpecs.map((spec) => ({
    name: spec.name,
    replicas: spec.replicas,
    spares: spec.spares,
    gpusPerPod: podGpus(spec),
  }));
  const nodes = replicaSpecs.reduce((sum, spec) => sum + spec.replicas, 0);
  const distinctGpus = new Set(replicaSpecs.map((spec) => spec.gpusPerPod));
  const [onlyGpus] = distinctGpus;
  const gpusPerPod = distinctGpus.size === 1 && onlyGpus !== undefined ? onlyGpus : null;
  const ranksPerNode = specRanksPerNode(job, gpusPerPod);
  return {
    nodes,
    spareNodes: replicaSpecs.reduce((sum, spec) => sum + spec.spares, 0),
    ranksPerNode,
    ranks: ranksPerNode === null ? null : nodes * ranksPerNode,
    gpusPerPod,
    gpus: replicaSpecs.reduce((sum, spec) => sum + spec.replicas * spec.gpusPerPod, 0),
    replicaSpecs,
  };
}
