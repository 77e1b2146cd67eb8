/**
 * The largest size an elastic job's pods may exist for, from what the operator last wrote in its status
 * (status.rebound.elastic, server/operator/reconcilers/job-state.ts): the size it runs at, or, while a
 * scaling is under way, the larger of its two sizes (a scale-up's new pods are made before the old ranks
 * stop; a scale-down's extra pods go only once the ranks have stopped). A job with no such status yet has
 * pods for `minReplicas` at most.
 *
 * The capacity of a step above this size is not in use: when governance preempts such a step nothing has to
 * stop, so the step is given back at once (released or asked for again) instead of being held "evicting"
 * until pods that never existed are gone, which would keep the GPUs from the job that preempted it.
 */
export function sizeInUse(status: unknown, minReplicas: number): number {
  const elastic = (status as { rebound?: { elastic?: unknown } } | null | undefined)?.rebound?.elastic as
    | { size?: unknown; scaling?: { from?: unknown; to?: unknown } | null }
    | null
    | undefined;
  const sizes = [elastic?.size, elastic?.scaling?.from, elastic?.scaling?.to].filter(
    (size): size is number => typeof size === "number" && Number.isFinite(size),
  );
  return sizes.length > 0 ? Math.max(minReplicas, ...sizes) : minReplicas;
}
