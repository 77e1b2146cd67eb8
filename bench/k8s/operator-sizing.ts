/**
 * The operator's memory, sized from bench:k8s (kubernetes back end, one 8-rank pod per KWOK node, the
 * operator with the shipped heap cap, 2-core machine, 2026-11-28):
 *
 *   pods (ranks)      live heap after a full GC (--trace-gc)   RSS quiet / peak (VmHWM)
 *   256 (2,048)       79 MB                                    373 / 374 MB
 *   2,048 (16,384)    136 MB quiet, 148 MB during a fault      443 / 472 MB   (another run: 411 / 439)
 *
 * Since the presence thread (server/operator/presence/thread.ts, 2026-11-28 afternoon): RSS peak 361–366 MB
 * at 256 pods, 502–521 MB at 2,048 (the worker's own heap holds each agent's newest line, and the
 * operator's thread a mirror of it).
 *
 * Since the operator runs bundled, not under tsx (scripts/lib/operator-build.ts, 2026-11-28 evening): RSS
 * before the job 112–114 MB (was 232), peak 265–266 MB at 256 pods and 402–407 MB at 2,048 (three runs).
 * Under tsx, ~48 MB of the heap were module sources and source maps held as strings.
 *
 * So, per 1,000 pods (and their nodes: the node informer holds one object per node), ~36 MB of live heap
 * (the operator's thread, which the cap governs) and ~80 MB of peak RSS, on a base of ~250 MB of RSS. The
 * figures are those measured under tsx (base ~70 MB then, 143 MB in a 2,048-pod heap snapshot). Bundled
 * (2026-11-29, --trace-gc, the operator's thread after each full collection): 52–54 MB at 256 pods, 95–101
 * MB quiet and up to 111 MB during a fault at 2,048, so the cap below is on the safe side. A /start body
 * no longer grows with the square of the pods (server/operator/reconcilers/steps.ts): before, a 2,048-pod
 * job ran out of a 256 MB heap in JsonStringify.
 *
 * The heap cap is HEAP_HEADROOM × the live heap of the job it is sized for: V8 then collects in time
 * (at 2,048 pods under 256 MB: a full collection every ~5 s, ~50 ms each, about 1 % of the time) instead
 * of letting garbage grow up to the container's memory limit. The Deployment's memory limit is
 * LIMIT_HEADROOM × the RSS budget of the largest job the cap supports.
 */
export const SIZING = {
  liveHeapBaseMb: 70,
  liveHeapPer1000PodsMb: 36,
  rssBaseMb: 250,
  rssPer1000PodsMb: 80,
} as const;

export const HEAP_HEADROOM = 1.6;
export const LIMIT_HEADROOM = 1.25;

/** The job the shipped cap is sized for: issue 18's 16,384 ranks, 2,048 pods × 8. */
export const SIZED_FOR_PODS = 2048;

export const liveHeapMb = (pods: number) =>
  SIZING.liveHeapBaseMb + (SIZING.liveHeapPer1000PodsMb * pods) / 1000;

/** The operator's peak RSS budget for a job of `pods` pods. */
export const rssBudgetMb = (pods: number) => SIZING.rssBaseMb + (SIZING.rssPer1000PodsMb * pods) / 1000;

/** The heap cap for a job of `pods` pods: HEAP_HEADROOM × its live heap, rounded up to 64 MB. */
export const heapCapMbFor = (pods: number) => Math.ceil((HEAP_HEADROOM * liveHeapMb(pods)) / 64) * 64;

/** The largest job (pods) a heap cap supports with HEAP_HEADROOM, rounded down to 100 pods. */
export function largestSupportedPods(heapCapMb: number): number {
  const pods = ((heapCapMb / HEAP_HEADROOM - SIZING.liveHeapBaseMb) / SIZING.liveHeapPer1000PodsMb) * 1000;
  return Math.floor(pods / 100) * 100;
}

/** The container memory limit (MiB) for the largest job a heap cap supports, rounded up to 64 MiB. */
export const memoryLimitMiFor = (heapCapMb: number) =>
  Math.ceil((LIMIT_HEADROOM * rssBudgetMb(largestSupportedPods(heapCapMb))) / 64) * 64;

/** The shipped cap: deploy/operator/deployment.yaml's NODE_OPTIONS, and bench:k8s's default. */
export const OPERATOR_HEAP_MB = heapCapMbFor(SIZED_FOR_PODS);
export const OPERATOR_HEAP_FLAG = `--max-old-space-size=${OPERATOR_HEAP_MB}`;
