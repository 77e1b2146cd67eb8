/**
 * Elastic sizes (docs/hyperpod-compatibility.md, "Elastic training"): the world sizes (replica counts, i.e.
 * pods) an elastic job may run at, and how a size is spread over its replica specs. Pure.
 */

/** The parts of `spec.elasticPolicy` the sizes depend on (minReplicas filled in by the spec parser). */
export type SizePolicy = {
  minReplicas: number;
  maxReplicas: number;
  replicaIncrementStep?: number | undefined;
  replicaDiscreteValues?: readonly number[] | undefined;
};

/** The parts of a replica spec the spread depends on. */
export type SizedReplicaSpec = { name: string; replicas: number; maxReplicas?: number | undefined };

/**
 * The allowed sizes, ascending, always starting at minReplicas:
 * - `replicaDiscreteValues`: those values between minReplicas and maxReplicas, plus minReplicas itself
 *   (the job starts there whatever the list says);
 * - else `minReplicas + N × replicaIncrementStep` up to maxReplicas (a step of 1 when neither is set). A
 *   maxReplicas that is not on a step is not a size (HyperPod's formula: "minReplicas + N * replicaIncrementStep").
 */
export function allowedSizes(policy: SizePolicy): number[] {
  const min = Math.max(1, policy.minReplicas);
  const max = Math.max(min, policy.maxReplicas);
  if (policy.replicaDiscreteValues !== undefined) {
    const values = new Set([min, ...policy.replicaDiscreteValues.filter((v) => v >= min && v <= max)]);
    return [...values].sort((a, b) => a - b);
  }
  const step = Math.max(1, policy.replicaIncrementStep ?? 1);
  const sizes: number[] = [];
  for (let size = min; size <= max; size += step) sizes.push(size);
  return sizes;
}

/** The largest allowed size at most `limit` (null: not even the smallest fits). */
export function largestAllowedAtMost(sizes: readonly number[], limit: number): number | null {
  let best: number | null = null;
  for (const size of sizes) if (size <= limit && (best === null || size > best)) best = size;
  return best;
}

/** The next allowed size above `size` (null: none). */
export function nextSizeAbove(sizes: readonly number[], size: number): number | null {
  let best: number | null = null;
  for (const s of sizes) if (s > size && (best === null || s < best)) best = s;
  return best;
}

/** How many pods a replica spec may hold: its maxReplicas, else its replicas (the last spec: the policy's max). */
function capOf(spec: SizedReplicaSpec, last: boolean, policyMax: number): number {
  if (spec.maxReplicas !== undefined) return spec.maxReplicas;
  return last ? Math.max(spec.replicas, policyMax) : spec.replicas;
}

/**
 * A world size spread over the replica specs, in their order: each spec is filled up to its cap before the
 * next gets any, so with the partial-preemption shape (`base` then `elastic`) the base is always full first
 * and the elastic spec holds what is above it. Sizes beyond every cap are cut to the sum of the caps.
 */
export function replicasBySpec(
  specs: readonly SizedReplicaSpec[],
  size: number,
  policyMax: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  let left = Math.max(0, size);
  specs.forEach((spec, index) => {
    const take = Math.min(left, capOf(spec, index === specs.length - 1, policyMax));
    out[spec.name] = take;
    left -= take;
  });
  return out;
}

/**
 * The pods a scaling step adds, per replica spec: those of size `to` less those of size `from` (from < to).
 * On Kubernetes each step is one extra Kueue Workload of these pods.
 */
export function stepPods(opts: {
  specs: readonly SizedReplicaSpec[];
  from: number;
  to: number;
  policyMax: number;
}): Record<string, number> {
  const low = replicasBySpec(opts.specs, opts.from, opts.policyMax);
  const high = replicasBySpec(opts.specs, opts.to, opts.policyMax);
  const out: Record<string, number> = {};
  for (const spec of opts.specs) {
    const added = (high[spec.name] ?? 0) - (low[spec.name] ?? 0);
    if (added > 0) out[spec.name] = added;
  }
  return out;
}
