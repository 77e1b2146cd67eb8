import type { Ledger } from "./ledger";
import { rankOf } from "./priority";
import type { SchedulerSettings, Workload } from "./types";

/**
 * Admission order. Each team's queue (its LocalQueue) is ordered by rank (priority weight under task ranking;
 * a workload without a class ranks 0), then arrival (createdAt, then key). Across teams the next workload is
 * the best of the teams' heads by rank, then, with fair share on, the lower dominant resource share of its
 * team (Kueue's DRS: fair-share.ts), then arrival. Queues are BestEffortFIFO: a head that does not fit is set
 * aside and the next workload of its team becomes the head.
 */

export type Queued = { workload: Workload; rank: number };

function byArrival(a: Queued, b: Queued): number {
  if (a.workload.createdAt !== b.workload.createdAt) return a.workload.createdAt - b.workload.createdAt;
  return a.workload.key < b.workload.key ? -1 : a.workload.key > b.workload.key ? 1 : 0;
}

export function compareInTeam(a: Queued, b: Queued): number {
  return b.rank - a.rank || byArrival(a, b);
}

/** Team → its queue, in order. */
export function teamQueues(pending: readonly Workload[], settings: SchedulerSettings): Map<string, Queued[]> {
  const queues = new Map<string, Queued[]>();
  for (const workload of pending) {
    const queue = queues.get(workload.team) ?? [];
    queue.push({ workload, rank: rankOf(workload, settings) });
    queues.set(workload.team, queue);
  }
  for (const queue of queues.values()) queue.sort(compareInTeam);
  return queues;
}

export type Cursor = { team: string; queue: readonly Queued[]; index: number };

function compareHeads(a: Queued, b: Queued, ledger: Ledger): number {
  if (a.rank !== b.rank) return b.rank - a.rank;
  if (ledger.limits.settings.fairShare && a.workload.team !== b.workload.team) {
    const shareA = ledger.share(a.workload.team);
    const shareB = ledger.share(b.workload.team);
    if (shareA !== shareB) return shareA < shareB ? -1 : 1;
  }
  return byArrival(a, b);
}

/** The cursor whose head goes next (it is advanced by the caller), or null when every queue is done. */
export function nextCursor(cursors: Cursor[], ledger: Ledger): Cursor | null {
  let best: Cursor | null = null;
  let bestHead: Queued | undefined;
  for (const cursor of cursors) {
    const head = cursor.queue[cursor.index];
    if (head === undefined) continue;
    if (bestHead === undefined || compareHeads(head, bestHead, ledger) < 0) {
      best = cursor;
      bestHead = head;
    }
  }
  return best;
}
