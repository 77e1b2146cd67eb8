import type {
  AdmissionDecision,
  AdmittedWorkload,
  FlavorQuantities,
  GovernanceConfig,
  GovernanceSnapshot,
  Workload,
} from "@/server/domain/governance/types";
import { STEP_SEPARATOR, stepClasses } from "./local-elastic";
import type { Entry } from "./local-entries";

/**
 * One admission cycle's bookkeeping around the domain's pure decision (server/domain/governance
 * decideAdmissions): the snapshot it decides over, and what its decision changes in the entries.
 */

/**
 * When the entry was admitted, for preemption's "newest first": an elastic job's steps admitted in one cycle
 * count the larger step as the newer (a millisecond per replica of its size), so the largest goes first.
 */
function admittedAt(entry: Entry): number {
  const at = entry.workload.key.lastIndexOf(STEP_SEPARATOR);
  const size = at < 0 ? 0 : Number(entry.workload.key.slice(at + 1));
  return entry.since + (Number.isFinite(size) ? Math.min(size, 1000) : 0);
}

export function snapshotOf(input: {
  config: GovernanceConfig;
  capacity: FlavorQuantities;
  entries: ReadonlyMap<string, Entry>;
  now: number;
}): GovernanceSnapshot {
  const admitted: AdmittedWorkload[] = [];
  const pending: Workload[] = [];
  for (const entry of input.entries.values()) {
    if (entry.state === "pending") pending.push(entry.workload);
    else
      admitted.push({ ...entry.workload, flavor: entry.flavor ?? "default", admittedAt: admittedAt(entry) });
  }
  const scheduler = input.config.scheduler;
  const config = {
    ...input.config,
    scheduler: { ...scheduler, priorityClasses: stepClasses(scheduler.priorityClasses) },
  };
  return { config, capacity: input.capacity, admitted, pending, now: input.now };
}

type Change = { key: string; entry: Entry };

/** Victims start their graceful stop; they hold their capacity until their pods are gone (requeue). */
function preempt(entries: ReadonlyMap<string, Entry>, decision: AdmissionDecision, now: number): Change[] {
  const changes: Change[] = [];
  for (const preemption of decision.preempt) {
    const key = preemption.victim.key;
    const entry = entries.get(key);
    if (entry?.state !== "admitted") continue;
    const record = { reason: preemption.reason, message: preemption.message, by: preemption.by };
    changes.push({ key, entry: { ...entry, state: "evicting", since: now, ...record, preemption: record } });
  }
  return changes;
}

/**
 * Admits what fits now. A workload that needs others preempted first waits until they have stopped (as
 * Kueue's does): the cycle that follows their requeue admits it.
 */
function admit(entries: ReadonlyMap<string, Entry>, decision: AdmissionDecision, now: number): Change[] {
  const changes: Change[] = [];
  for (const admission of decision.admit) {
    const key = admission.workload.key;
    const entry = entries.get(key);
    if (entry?.state !== "pending") continue;
    const holding = admission.preempts.filter((victim) => {
      const state = entries.get(victim)?.state;
      return state === "admitted" || state === "evicting";
    });
    if (holding.length > 0) {
      const message = `waiting for ${holding.join(", ")} to stop (preempted to make room for it)`;
      if (entry.reason !== "Preempting" || entry.message !== message)
        changes.push({ key, entry: { ...entry, reason: "Preempting", message } });
      continue;
    }
    changes.push({
      key,
      entry: {
        ...entry,
        state: "admitted",
        flavor: admission.flavor,
        since: now,
        reason: "Admitted",
        message: admission.message,
      },
    });
  }
  return changes;
}

/**
 * Why the rest wait, taken from a cycle that admitted and preempted nothing (a settled queue): in a cycle
 * that admits, what waits behind is "waiting behind" only until the next cycle, which runs at once. A change
 * of reason or of message (the amount missing, the position, the jobs ahead) wakes the job, so its Admitted
 * condition, the queue view and the CLI say what holds now; a settled cycle runs at most SETTLE_MS after
 * an admitting one (local.ts), so a queue of thousands is rewritten once per admission, not per cycle.
 */
function waiting(entries: ReadonlyMap<string, Entry>, decision: AdmissionDecision): Change[] {
  const changes: Change[] = [];
  if (decision.admit.length > 0 || decision.preempt.length > 0) return changes;
  for (const pending of decision.pending) {
    const key = pending.workload.key;
    const entry = entries.get(key);
    if (entry?.state !== "pending") continue;
    if (entry.reason === pending.reason && entry.message === pending.message) continue;
    changes.push({ key, entry: { ...entry, reason: pending.reason, message: pending.message } });
  }
  return changes;
}

/** Applies a decision to the entries; returns the keys whose verdict changed (their jobs are woken). */
export function applyDecision(
  entries: Map<string, Entry>,
  decision: AdmissionDecision,
  now: number,
): string[] {
  const changes = [...preempt(entries, decision, now), ...admit(entries, decision, now)];
  changes.push(...waiting(entries, decision));
  for (const change of changes) entries.set(change.key, change.entry);
  return changes.map((change) => change.key);
}
