import { z } from "zod";
import type { ClusterJob } from "@/server/cluster/types";
import type { Workload } from "@/server/domain/governance/types";
import {
  jobPhaseSchema,
  type LiveAdmission,
  liveAdmissionSchema,
} from "@/server/domain/operator-api/contract";
import type { AdmissionVerdict } from "./types";

/**
 * One governed job as the local admission holds it. `admitted` and `evicting` hold capacity (an evicted
 * job holds it until its pods are gone, as a Kueue Workload does until its job is suspended).
 */
export type Entry = {
  uid: string;
  workload: Workload;
  state: "pending" | "admitted" | "evicting";
  flavor: string | null;
  /** Epoch ms of the last change of state. */
  since: number;
  /** Why it waits (pending), or the admission's message (admitted). */
  reason: string;
  message: string;
  /** The last preemption of this job (kept while it waits again: the console shows who took its place). */
  preemption: { reason: string; message: string; by: string | null } | null;
};

/** What a status written by this operator says about the job's admission. */
const savedSchema = z.object({
  phase: jobPhaseSchema,
  admission: liveAdmissionSchema.nullable().optional(),
});

/**
 * A job the admission sees for the first time (a new job, or every job after an operator restart): its
 * admission is what its status says. A job that ran before it was governed (a status with a phase past
 * Pending but no admission) holds its capacity: it is not stopped to be queued.
 */
export function restoreEntry(job: ClusterJob, workload: Workload, now: number): Entry {
  const parsed = savedSchema.safeParse((job.status as { rebound?: unknown }).rebound);
  const saved = parsed.success ? parsed.data : null;
  const admission = saved?.admission ?? null;
  const base = { uid: job.uid, workload, flavor: admission?.flavor ?? null, preemption: null };
  if (admission?.state === "Admitted" || (saved && !admission && saved.phase !== "Pending"))
    return { ...base, state: "admitted", since: admission?.since ?? now, reason: "Admitted", message: "" };
  if (admission?.state === "Preempting") {
    const preemption = { reason: admission.reason, message: admission.message, by: admission.preemptedBy };
    return { ...base, state: "evicting", since: admission.since, preemption, ...preemption };
  }
  const preemption =
    admission?.state === "Preempted"
      ? { reason: admission.reason, message: admission.message, by: admission.preemptedBy }
      : null;
  return {
    ...base,
    state: "pending",
    since: admission?.since ?? now,
    reason: "Pending",
    message: "waiting for the next admission cycle",
    preemption,
  };
}

export function verdictOf(entry: Entry): AdmissionVerdict {
  switch (entry.state) {
    case "pending":
      return { state: "Pending", reason: entry.reason, message: entry.message };
    case "admitted":
      return { state: "Admitted", flavor: entry.flavor, nodeSelector: {} };
    case "evicting":
      return {
        state: "Evicted",
        reason: entry.preemption?.reason ?? "Preempted",
        message: entry.preemption?.message ?? entry.message,
        by: entry.preemption?.by ?? null,
      };
    default:
      return entry.state satisfies never;
  }
}

/**
 * The console's view: a job waiting again after a preemption shows as Preempted, with who took its place
 * (why it waits now is its Admitted condition, and "why pending").
 */
export function describeEntry(entry: Entry): LiveAdmission {
  const common = { since: entry.since, flavor: entry.flavor };
  if (entry.state === "admitted")
    return { ...common, state: "Admitted", reason: "Admitted", message: entry.message, preemptedBy: null };
  const preemption = entry.preemption;
  if (entry.state === "evicting")
    return {
      ...common,
      state: "Preempting",
      reason: preemption?.reason ?? "Preempted",
      message: preemption?.message ?? "",
      preemptedBy: preemption?.by ?? null,
    };
  if (preemption)
    return {
      ...common,
      state: "Preempted",
      reason: preemption.reason,
      message: preemption.message,
      preemptedBy: preemption.by,
    };
  return { ...common, state: "Pending", reason: entry.reason, message: entry.message, preemptedBy: null };
}
