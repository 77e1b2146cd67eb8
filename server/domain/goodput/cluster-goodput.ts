/**
 * The cluster's goodput (the TV views): the jobs' goodput weighted by the GPUs each holds, so a 64-GPU job
 * that lost a tenth of its time weighs 64 times a 1-GPU job. Σ gpus·goodput / Σ gpus over the jobs that have
 * a goodput (started) and hold GPUs; null when none does. Each job's goodput is over its own life
 * (job-goodput.ts), so this is the share of the running GPUs' time that went into training progress.
 */
export function clusterGoodput(jobs: readonly { gpus: number; goodput: number | null }[]): number | null {
  let weighted = 0;
  let gpus = 0;
  for (const job of jobs) {
    if (job.goodput === null || !Number.isFinite(job.goodput) || !(job.gpus > 0)) continue;
    weighted += job.gpus * job.goodput;
    gpus += job.gpus;
  }
  return gpus === 0 ? null : weighted / gpus;
}
