import type { ElasticCapacity } from "@/server/cluster/elastic-capacity";
import { type ClusterJob, jobKey } from "@/server/cluster/types";
import { sizeInUse } from "@/server/domain/elastic/in-use";
import { sizesOf } from "@/server/domain/elastic/sized-job";
import { stepPods } from "@/server/domain/elastic/sizes";
import { stepWorkload } from "@/server/domain/elastic/step-workload";
import { jobSize } from "@/server/domain/job-spec/job-size";
import type { Entry } from "./local-entries";

/**
 * Elastic capacity on the local back end (ElasticCapacity in types.ts): a governed elastic job's steps are
 * entries in the local admission beside its base entry, keyed `<namespace>/<name>#<size>`, admitted and
 * preempted by the same cycles as every job. An ungoverned elastic job (no team queue) grows into GPUs no
 * job holds, as HyperPod without Kueue creates its pods when there is room.
 *
 * A step preempted before the job uses it (above sizeInUse: no pod runs on it) has nothing to stop: it is
 * asked for again at once (pending, behind what preempted it) rather than held "evicting", which nothing
 * would ever end (the gate's requeue is for a job's own entry, once its pods are gone).
 */

export const STEP_SEPARATOR = "#";

/**
 * A step's priority class: its replica spec's class, one notch below it (HyperPod: "then incrementally
 * requests additional capacity with lower priority"), so that the job's own Workload and a waiting job of
 * the same class outrank it. The notch is a class of its own (`<class>#step`, weight − 0.5) that the
 * admission's configuration gets beside the real ones (stepClasses).
 */
export const STEP_CLASS_SUFFIX = "#step";
const stepClass = (priorityClass: string | null) => `${priorityClass ?? ""}${STEP_CLASS_SUFFIX}`;

export function stepClasses(
  classes: readonly { name: string; weight: number }[],
): { name: string; weight: number }[] {
  return [
    ...classes,
    ...classes.map((spec) => ({ name: stepClass(spec.name), weight: spec.weight - 0.5 })),
    { name: stepClass(null), weight: -0.5 },
  ];
}

/** The job key of an entry's key (a step's key names its job). */
export function jobOfEntryKey(key: string): string {
  const at = key.indexOf(STEP_SEPARATOR);
  return at < 0 ? key : key.slice(0, at);
}

/** The size the job's status says it runs at (status.rebound.elastic.size), else minReplicas. */
function runningSize(job: ClusterJob): number {
  const size = (job.status as { rebound?: { elastic?: { size?: unknown } } }).rebound?.elastic?.size;
  return typeof size === "number" ? size : (job.object.spec.elasticPolicy?.minReplicas ?? 0);
}

export function createLocalElastic(opts: {
  entries: Map<string, Entry>;
  /** The job's team when it is governed, else null. */
  teamOf(job: ClusterJob): string | null;
  /** GPUs no admitted job and no ungoverned job holds. */
  freeGpus(): Promise<number>;
  schedule(): void;
  clock(): number;
}): Required<ElasticCapacity> & { releaseAll(key: string): boolean } {
  const { entries } = opts;
  /** Ungoverned elastic jobs: the size the free GPUs were found for. */
  const ungoverned = new Map<string, number>();
  const stepKey = (job: ClusterJob, size: number) => `${jobKey(job.ref)}${STEP_SEPARATOR}${size}`;
  const steps = (job: ClusterJob, to: number) => {
    const sizes = sizesOf(job.object);
    return sizes.flatMap((size, index) =>
      index > 0 && size <= to ? [{ from: sizes[index - 1] ?? 0, to: size }] : [],
    );
  };
  const stepState = (job: ClusterJob, size: number) => {
    const entry = entries.get(stepKey(job, size));
    return entry?.uid === job.uid ? entry.state : null;
  };
  /** The largest size all of whose steps are admitted. */
  const admitted = (job: ClusterJob): number => {
    const min = job.object.spec.elasticPolicy?.minReplicas ?? 0;
    if (opts.teamOf(job) === null) return Math.max(runningSize(job), ungoverned.get(jobKey(job.ref)) ?? min);
    let size = min;
    for (const step of steps(job, Number.POSITIVE_INFINITY)) {
      if (stepState(job, step.to) !== "admitted") break;
      size = step.to;
    }
    return size;
  };
  const track = (job: ClusterJob, team: string, step: { from: number; to: number }, index: number) => {
    const key = stepKey(job, step.to);
    if (entries.get(key)?.uid === job.uid) return false;
    const now = opts.clock();
    // Steps the job already runs with (an operator restart) hold their capacity, as a running job's base does.
    const running = runningSize(job) >= step.to;
    const own = stepWorkload(job.object, { ...step, team, createdAt: now + index });
    const workload = { ...own, priorityClass: stepClass(own.priorityClass) };
    entries.set(key, {
      uid: job.uid,
      workload,
      state: running ? "admitted" : "pending",
      flavor: null,
      since: now,
      reason: running ? "Admitted" : "Pending",
      message: running ? "" : "waiting for the next admission cycle",
      preemption: null,
    });
    return true;
  };
  /**
   * Steps preempted above the size the job's pods exist for wait again at once (their capacity is free for
   * what preempted them); true when there were any.
   */
  const requeueUnused = (job: ClusterJob): boolean => {
    const inUse = sizeInUse(job.status, job.object.spec.elasticPolicy?.minReplicas ?? 0);
    const unused = steps(job, Number.POSITIVE_INFINITY).filter(
      (step) => step.to > inUse && stepState(job, step.to) === "evicting",
    );
    for (const step of unused) {
      const key = stepKey(job, step.to);
      const entry = entries.get(key);
      if (!entry) continue;
      entries.set(key, {
        ...entry,
        state: "pending",
        flavor: null,
        since: opts.clock(),
        reason: "Pending",
        message: "preempted before use: waiting for the next admission cycle",
      });
    }
    if (unused.length > 0) opts.schedule();
    return unused.length > 0;
  };
  /** Drops the job's steps above `above`; true when there were any. */
  const dropSteps = (key: string, above: number): boolean => {
    const prefix = `${key}${STEP_SEPARATOR}`;
    let changed = false;
    for (const entryKey of [...entries.keys()]) {
      if (entryKey.startsWith(prefix) && Number(entryKey.slice(prefix.length)) > above)
        changed = entries.delete(entryKey) || changed;
    }
    return changed;
  };
  const requestUngoverned = async (job: ClusterJob, toReplicas: number) => {
    const key = jobKey(job.ref);
    const from = Math.max(runningSize(job), ungoverned.get(key) ?? 0);
    if (toReplicas <= from) return "admitted" as const;
    const specs = job.object.spec.replicaSpecs;
    const policyMax = job.object.spec.elasticPolicy?.maxReplicas ?? toReplicas;
    const perPod = new Map(jobSize(job.object).replicaSpecs.map((spec) => [spec.name, spec.gpusPerPod]));
    const added = stepPods({ specs, from, to: toReplicas, policyMax });
    const gpus = Object.entries(added).reduce((sum, [name, pods]) => sum + pods * (perPod.get(name) ?? 0), 0);
    if (gpus > (await opts.freeGpus())) return "pending" as const;
    ungoverned.set(key, toReplicas);
    return "admitted" as const;
  };

  return {
    async request(job, toReplicas) {
      const team = opts.teamOf(job);
      if (team === null) return requestUngoverned(job, toReplicas);
      let changed = requeueUnused(job);
      steps(job, toReplicas).forEach((step, index) => {
        changed = track(job, team, step, index) || changed;
      });
      if (changed) opts.schedule();
      return admitted(job) >= toReplicas ? "admitted" : "pending";
    },
    async release(job, toReplicas) {
      const key = jobKey(job.ref);
      const held = ungoverned.get(key);
      if (held !== undefined && held > toReplicas) ungoverned.set(key, toReplicas);
      if (dropSteps(key, toReplicas)) opts.schedule();
    },
    preempted(job) {
      if (opts.teamOf(job) === null) return null;
      requeueUnused(job);
      const evicted = steps(job, Number.POSITIVE_INFINITY).some(
        (step) => stepState(job, step.to) === "evicting",
      );
      return evicted ? admitted(job) : null;
    },
    admitted,
    workloadRef(job) {
      // The job's own entry in this admission stands for Kueue's Workload; its steps are `<name>#<size>`.
      if (opts.teamOf(job) === null) return null;
      return { kind: "Workload", namespace: job.ref.namespace, name: job.ref.name };
    },
    releaseAll(key) {
      ungoverned.delete(key);
      return dropSteps(key, 0);
    },
  };
}
