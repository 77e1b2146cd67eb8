import { decideAdmissions, priorityOf } from "@/server/domain/governance";
import type { PendingDecision } from "@/server/domain/governance/types";
import type { QueueJob, QueueView } from "@/server/services/governance/governance.schema";
import type { GovernedJob, SnapshotWithJobs } from "./snapshot";

/**
 * A team's queue as the console shows it: pending jobs in admission order (position from the domain's own
 * admission cycle, reason and message from the operator where it gave them), admitted jobs, and preempted
 * ones with whom they were preempted for and why (the live job's `admission`).
 */

function queueJob(entry: GovernedJob, snap: SnapshotWithJobs, since: number): QueueJob {
  const { workload, job } = entry;
  return {
    key: workload.key,
    namespace: job.namespace,
    name: job.name,
    priorityClass: workload.priorityClass,
    priority: priorityOf(workload, snap.snapshot.config.scheduler),
    createdAt: job.createdAt,
    ageMs: Math.max(0, snap.snapshot.now - since),
    request: { ...workload.request },
  };
}

type Bucket = "pending" | "admitted" | "preempted" | null;

function bucketOf(entry: GovernedJob): Bucket {
  const state = entry.job.admission?.state;
  if (state === "Preempted" || state === "Preempting") return "preempted";
  if (state === "Pending") return "pending";
  if (state === "Admitted") return "admitted";
  return entry.job.phase === "Suspended" ? null : "admitted";
}

/** The operator's reason where it gave one (it acts on it), else the domain's own. */
function reasonOf(live: GovernedJob["job"]["admission"], decided: PendingDecision | undefined) {
  if (live?.reason) return { reason: live.reason, message: live.message };
  if (decided) return { reason: decided.reason, message: decided.message };
  return { reason: "Pending", message: "" };
}

function pendingRow(entry: GovernedJob, snap: SnapshotWithJobs, decided: PendingDecision | undefined) {
  return {
    ...queueJob(entry, snap, entry.job.createdAt),
    position: decided?.position ?? Number.MAX_SAFE_INTEGER,
    ...reasonOf(entry.job.admission, decided),
  };
}

function addTo(
  view: QueueView,
  entry: GovernedJob,
  at: { snap: SnapshotWithJobs; decided?: PendingDecision },
) {
  const { snap } = at;
  const admission = entry.job.admission;
  const bucket = bucketOf(entry);
  if (bucket === "pending") view.pending.push(pendingRow(entry, snap, at.decided));
  if (bucket === "admitted") {
    const admittedAt = admission?.since ?? entry.job.createdAt;
    const flavor = admission?.flavor ?? null;
    view.admitted.push({ ...queueJob(entry, snap, admittedAt), flavor, admittedAt });
  }
  if (bucket === "preempted" && admission) {
    const { preemptedBy, reason, message, since } = admission;
    view.preempted.push({ ...queueJob(entry, snap, since), by: preemptedBy, reason, message, at: since });
  }
}

export function queueOf(snap: SnapshotWithJobs, team: string): QueueView {
  const decision = decideAdmissions(snap.snapshot);
  const decided = new Map(decision.pending.map((entry) => [entry.workload.key, entry]));
  const view: QueueView = { team, pending: [], admitted: [], preempted: [] };
  for (const entry of snap.jobs.values()) {
    if (entry.team === team) addTo(view, entry, { snap, decided: decided.get(entry.workload.key) });
  }
  view.pending.sort((a, b) => a.position - b.position || a.createdAt - b.createdAt);
  view.pending.forEach((row, index) => {
    row.position = index + 1;
  });
  view.admitted.sort((a, b) => b.priority - a.priority || a.admittedAt - b.admittedAt);
  view.preempted.sort((a, b) => b.at - a.at);
  return view;
}

/** Pending, admitted and preempted counts per team (the overview). */
export function jobCounts(
  snap: SnapshotWithJobs,
): Map<string, { pending: number; admitted: number; preempted: number }> {
  const counts = new Map<string, { pending: number; admitted: number; preempted: number }>();
  for (const entry of snap.jobs.values()) {
    const bucket = bucketOf(entry);
    if (bucket === null) continue;
    const row = counts.get(entry.team) ?? { pending: 0, admitted: 0, preempted: 0 };
    row[bucket] += 1;
    counts.set(entry.team, row);
  }
  return counts;
}
