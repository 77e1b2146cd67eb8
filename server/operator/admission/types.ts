import type { ElasticCapacity } from "@/server/cluster/elastic-capacity";
import type { ClusterJob } from "@/server/cluster/types";
import type { WhyPending } from "@/server/domain/governance/types";
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
  /**
   * "Why is this job pending", answered from the admission the gate holds (no list of every job): `governed`
   * false when the job (`<namespace>/<name>`) is in no team queue, `answer` null when it is not pending.
   * Absent where the gate does not decide admissions itself (Kueue's: the console answers from its snapshot).
   */
  whyPending?(key: string): Promise<{ governed: boolean; answer: WhyPending | null }>;
  /** Calls `listener` with a job's key whenever its verdict changes (the controller reconciles it). */
  onWake?(listener: (key: string) => void): () => void;
  /** Capacity for elastic jobs' scaling steps (issue 14); absent: elastic jobs stay at the size admitted. */
  elastic?: ElasticCapacity;
  dispose(): Promise<void>;
};
