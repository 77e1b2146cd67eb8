import { parseQuantity, tidy } from "./quantity";
import type { Quantities, Workload } from "./types";

/**
 * A job as governance sees it (Kueue's Workload for a HyperPodPyTorchJob): one pod set of replicas + spares
 * per replica spec, its priority class and the instance types it may run on.
 */

export const PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class";
export const INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
const NAMESPACE_PREFIX = "hyperpod-ns-";
const TEAM_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The parts of a HyperPodPyTorchJob governance reads (the validated job type fits it). */
export type GovernedJob = {
  metadata: {
    name: string;
    namespace?: string | undefined;
    labels?: Readonly<Record<string, string>> | undefined;
  };
  spec: {
    replicaSpecs: ReadonlyArray<{
      name?: string | undefined;
      replicas?: number | undefined;
      spares?: number | undefined;
      template: { spec: PodSpecLike };
    }>;
  };
};
type PodSpecLike = {
  containers: ReadonlyArray<Readonly<Record<string, unknown>>>;
  initContainers?: unknown;
  nodeSelector?: unknown;
};

/** A resource request that is not a Kubernetes quantity; names the field. */
export class QuantityError extends Error {
  constructor(
    readonly path: string,
    value: unknown,
  ) {
    super(
      `${path}: expected a Kubernetes quantity such as "500m", "8" or "64Gi", got ${JSON.stringify(value)}`,
    );
    this.name = "QuantityError";
  }
}

/**
 * `hyperpod-ns-<team>` → team (docs/hyperpod-compatibility.md, "Task governance objects"); any other
 * namespace is not a team queue.
 */
export function teamOfNamespace(namespace: string): string | null {
  if (!namespace.startsWith(NAMESPACE_PREFIX)) return null;
  const team = namespace.slice(NAMESPACE_PREFIX.length);
  return team.length <= 40 && TEAM_NAME.test(team) ? team : null;
}

/** `training-priority` → `training` (the WorkloadPriorityClass name is `<class>-priority`). */
export function priorityClassOfLabel(label: string | undefined): string | null {
  if (label === undefined || label === "") return null;
  return label.endsWith("-priority") && label.length > "-priority".length
    ? label.slice(0, -"-priority".length)
    : label;
}

function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Governed resources: GPUs, cpu, memory and other extended resources (a domain-prefixed name). */
const counted = (resource: string): boolean =>
  resource === "cpu" ||
  resource === "memory" ||
  (resource.includes("/") && !resource.startsWith("kubernetes.io/"));

function quantities(table: unknown, path: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [resource, raw] of Object.entries(asRecord(table) ?? {})) {
    if (!counted(resource)) continue;
    const amount = parseQuantity(raw);
    if (amount === null || amount < 0) throw new QuantityError(`${path}.${resource}`, raw);
    out[resource] = amount;
  }
  return out;
}

/** One container's requests: `requests` wins, else `limits` (Kubernetes defaults requests to limits). */
function containerRequest(
  container: Readonly<Record<string, unknown>>,
  path: string,
): Record<string, number> {
  const resources = asRecord(container.resources);
  return {
    ...quantities(resources?.limits, `${path}.resources.limits`),
    ...quantities(resources?.requests, `${path}.resources.requests`),
  };
}

/** A pod's effective request: Σ containers, or the largest init container where that is more. */
function podRequest(spec: PodSpecLike, path: string): Record<string, number> {
  const total: Record<string, number> = {};
  spec.containers.forEach((container, index) => {
    for (const [r, amount] of Object.entries(containerRequest(container, `${path}.containers[${index}]`)))
      total[r] = (total[r] ?? 0) + amount;
  });
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers : [];
  inits.forEach((init: unknown, index) => {
    const request = containerRequest(asRecord(init) ?? {}, `${path}.initContainers[${index}]`);
    for (const [r, amount] of Object.entries(request)) total[r] = Math.max(total[r] ?? 0, amount);
  });
  return total;
}

function jobRequest(job: GovernedJob): Quantities {
  const total: Record<string, number> = {};
  job.spec.replicaSpecs.forEach((spec, index) => {
    const pods = (spec.replicas ?? 0) + (spec.spares ?? 0);
    const pod = podRequest(spec.template.spec, `spec.replicaSpecs[${index}].template.spec`);
    for (const [r, amount] of Object.entries(pod)) total[r] = tidy((total[r] ?? 0) + pods * amount);
  });
  for (const [r, amount] of Object.entries(total)) if (amount === 0) delete total[r];
  return total;
}

/**
 * Instance types the job's node selectors allow: null when none names one. Replica specs that name
 * different instance types leave no single flavor (one flavor is assigned to the whole job): [].
 */
function jobFlavors(job: GovernedJob): readonly string[] | null {
  const named = new Set<string>();
  for (const spec of job.spec.replicaSpecs) {
    const value = asRecord(spec.template.spec.nodeSelector)?.[INSTANCE_TYPE_LABEL];
    if (typeof value === "string") named.add(value);
  }
  if (named.size === 0) return null;
  return named.size > 1 ? [] : [...named];
}

/** The replica specs' names: Kueue's pod sets, which its pending messages name. */
function podSetsOf(job: GovernedJob): { podSets?: readonly string[] } {
  const names = job.spec.replicaSpecs.flatMap((spec) => (spec.name ? [spec.name] : []));
  return names.length > 0 ? { podSets: names } : {};
}

/**
 * The job's Workload: request = Σ over replica specs of (replicas + spares) × the pod's requests. Throws a
 * QuantityError naming the field when a request is not a Kubernetes quantity.
 */
export function workloadOf(job: GovernedJob, opts: { team: string; createdAt: number }): Workload {
  return {
    key: `${job.metadata.namespace ?? "default"}/${job.metadata.name}`,
    team: opts.team,
    priorityClass: priorityClassOfLabel(job.metadata.labels?.[PRIORITY_CLASS_LABEL]),
    createdAt: opts.createdAt,
    request: jobRequest(job),
    flavors: jobFlavors(job),
    ...podSetsOf(job),
  };
}
