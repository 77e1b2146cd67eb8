import type { ClusterJob } from "@/server/cluster/types";

// What an admission gate (server/operator/admission/types.ts) offers elastic jobs, kept here in the
// cluster layer because the Kueue back end (kubernetes/kueue/elastic-capacity.ts) implements it.

/**
 * Elastic capacity (docs/hyperpod-compatibility.md, "Elastic training";
 * docs/hyperpod-compatibility.md, "Submission rules"). An elastic job's own admission (the gate's verdict)
 * covers its minimum size: the pods of `replicasBySpec(specs, minReplicas)` (server/domain/elastic/sizes).
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
  /**
   * status.elasticWorkloadRef (HyperPod: "Reference to associated ElasticWorkload, only set when ElasticPolicy
   * is present"): the governance object that holds the job's minimum, its steps being named after it; null
   * for a job outside any team queue (no such object exists).
   */
  workloadRef?(job: ClusterJob): Record<string, string> | null;
};
