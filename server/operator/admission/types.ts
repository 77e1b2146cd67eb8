import type { ClusterJob } from "@/server/cluster/types";
import type { LiveAdmission } from "@/server/domain/operator-api/contract";

/**
 * The operator's admission gate (task governance). A governed job creates no pod until admitted, and a job
 * evicted (preempted) stops gracefully and waits again. Two implementations: the local back end's own
 * admission over server/domain/governance (local.ts) and Kueue's Workloads on clusters (kueue.ts). A job
 * outside any team queue is not governed and runs as HyperPod runs it without task governance.
 */
export type AdmissionVerdict =
  | { state: "NotGoverned" }
  | { state: "Pending"; reason: string; message: string }
  | {
      state: "Admitted";
      /** The flavor (instance type) chosen; its node labels go into the pods' node selector. */
      flavor: string | null;
      nodeSelector: Readonly<Record<string, string>>;
    }
  | { state: "Evicted"; reason: string; message: string; by: string | null };

export type AdmissionGate = {
  /** What the job may do now. Called on every reconcile of a job that is not finished: cheap. */
  verdict(job: ClusterJob, now: number): Promise<AdmissionVerdict>;
  /** The evicted job's pods are gone: it goes back to its queue. */
  requeue(job: ClusterJob): Promise<void>;
  /** The job finished, failed or was deleted: its capacity is free. */
  release(job: ClusterJob): Promise<void>;
  /** The job's admission as the console shows it (null: not governed). */
  describe(job: ClusterJob): LiveAdmission | null;
  /** The job (`<namespace>/<name>`) is gone without a last reconcile: its capacity is free. */
  forget?(key: string): void;
  /**
   * Whether the job (`<namespace>/<name>`) waits for admission and its reconcile has already been told so,
   * so that reconciling it again would change nothing until the gate wakes it (the periodic resync leaves
   * it out: 10,000 queued jobs would otherwise be reconciled every resync for nothing).
   */
  sleeping?(key: string): boolean;
  /** Calls `listener` with a job's key whenever its verdict changes (the controller reconciles it). */
  onWake?(listener: (key: string) => void): () => void;
  /** Capacity for elastic jobs' scaling steps (issue 14); absent: elastic jobs stay at the size admitted. */
  elastic?: ElasticCapacity;
  dispose(): Promise<void>;
};

/**
 * Elastic capacity (docs/hyperpod-compatibility.md, "Elastic training";
 * docs/hyperpod-compatibility.md, "Submission rules"). An elastic job's own admission (verdict above) covers
 * its minimum size: the pods of `replicasBySpec(specs, minReplicas)` (server/domain/elastic/sizes).
 * Everything above it is held in steps, one per allowed size (`allowedSizes(policy)`): the step of size `s`
 * holds the pods `stepPods({ from: previous allowed size, to: s })`, each pod at the priority class of the
 * replica spec it belongs to (its template's `kueue.x-k8s.io/priority-class` label, else its
 * `priorityClassName`, else the job's label), so that with the partial-preemption shape the `elastic` spec's
 * pods are preempted before the `base` spec's. On Kubernetes a step is one extra Kueue Workload (owned by the
 * job, named after the job's Workload and the size); locally an entry in Rebound's own admission.
 *
 * All members are idempotent and keyed by the job's uid: the operator calls them on every reconcile and after
 * a restart, with no memory of what it asked before.
 */
export type ElasticCapacity = {
  /**
   * Holds (or asks for) every step up to `toReplicas`, an allowed size above minReplicas. "admitted" once
   * all of them are admitted (the operator may then create the new pods), "pending" while any waits.
   * A step once admitted stays admitted until released or preempted.
   */
  request(job: ClusterJob, toReplicas: number): Promise<"admitted" | "pending">;
  /**
   * Gives back every step above `toReplicas` (a scale-down done, or a scale-up given up); at minReplicas
   * it gives back all the steps. The job's own admission is not touched (the gate's release does that).
   */
  release(job: ClusterJob, toReplicas: number): Promise<void>;
  /**
   * Whether any step the job holds was preempted (evicted to make room for other work): the largest size
   * whose steps are all still admitted (minReplicas when none are), to which the job must scale down
   * gracefully and then `release`; null when nothing was preempted.
   */
  preempted(job: ClusterJob): number | null;
  /** The largest size all of whose steps are admitted now (minReplicas when it holds none). */
  admitted(job: ClusterJob): number;
};
