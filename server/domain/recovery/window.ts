// Counting over the restart history: the sliding evalPeriodSeconds window, lifetime counters and repeat offenders.
import type { RecoveryStatusInput, RestartPolicyInput, RestartRecord } from "./types";

/**
 * Start (epoch ms, exclusive) of the sliding window: restarts with `at > start` count. Without a restartPolicy
 * the window is unbounded (our choice: nothing ever ages out).
 */
export function windowStart(policy: RestartPolicyInput | undefined, now: number): number {
  return policy === undefined ? Number.NEGATIVE_INFINITY : now - policy.evalPeriodSeconds * 1000;
}

/** Epoch ms of the latest full job restart in the history, or -Infinity when there is none. */
export function lastFullJobRestartAt(history: readonly RestartRecord[]): number {
  return history.reduce((latest, r) => (r.type === "JLR" && r.at > latest ? r.at : latest), -Infinity);
}

/**
 * Start (epoch ms, exclusive) of the counting window: the later of the sliding window start and the last JLR,
 * since a JLR resets the count of standard restarts.
 */
export function countingStart(input: {
  policy: RestartPolicyInput | undefined;
  history: readonly RestartRecord[];
  now: number;
}): number {
  return Math.max(windowStart(input.policy, input.now), lastFullJobRestartAt(input.history));
}

/** Standard restarts (PLR and pod replacement) after `since`. */
export function standardRestartsSince(history: readonly RestartRecord[], since: number): number {
  return history.filter((r) => r.type !== "JLR" && r.at > since).length;
}

/** `restartStatus.currentEvalPeriod`: the counting window start in epoch seconds, 0 when unbounded. */
export function toEvalPeriod(startMs: number): number {
  return Number.isFinite(startMs) ? Math.floor(startMs / 1000) : 0;
}

export type LifetimeCounters = { totalRestarts: number; fullJobRestarts: number };

/**
 * Restarts over the job's life. The persisted status and the history can each lag (status lost on re-create,
 * history trimmed of old entries), and counters never go down, so we take the larger of the two (our choice).
 */
export function lifetimeCounters(
  status: RecoveryStatusInput | undefined,
  history: readonly RestartRecord[],
): LifetimeCounters {
  const fullInHistory = history.filter((r) => r.type === "JLR").length;
  return {
    totalRestarts: Math.max(status?.restartCount ?? 0, history.length),
    fullJobRestarts: Math.max(status?.restartStatus?.fullJobRestartCount ?? 0, fullInHistory),
  };
}

function byName(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

type Tally = { node: string; count: number; lastAt: number };

function tallyNodes(faults: readonly { at: number; nodes: readonly string[] }[]): Tally[] {
  const byNode = new Map<string, Tally>();
  for (const fault of faults) {
    for (const node of new Set(fault.nodes)) {
      const prev = byNode.get(node) ?? { node, count: 0, lastAt: -Infinity };
      byNode.set(node, { node, count: prev.count + 1, lastAt: Math.max(prev.lastAt, fault.at) });
    }
  }
  return [...byNode.values()];
}

/**
 * Nodes that faulted at least twice in the sliding window (JLRs do not reset this), counting the current fault,
 * worst first: most faults, then most recent fault, then name (our tie-break, for determinism).
 */
export function repeatOffenders(input: {
  policy: RestartPolicyInput | undefined;
  history: readonly RestartRecord[];
  current: { at: number; node?: string };
  now: number;
}): string[] {
  const start = windowStart(input.policy, input.now);
  const current = {
    at: input.current.at,
    nodes: input.current.node === undefined ? [] : [input.current.node],
  };
  const faults = [...input.history.filter((r) => r.at > start), current];
  return tallyNodes(faults)
    .filter((t) => t.count >= 2)
    .sort((a, b) => b.count - a.count || b.lastAt - a.lastAt || byName(a.node, b.node))
    .map((t) => t.node);
}
