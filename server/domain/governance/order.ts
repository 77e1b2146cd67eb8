import { dominantShare } from "./fair-share";
import type { Ledger } from "./ledger";
import { rankOf } from "./priority";
import type { SchedulerSettings, Workload } from "./types";

/**
 * Admission order. Each team's queue (its LocalQueue) is ordered by rank (priority weight under task ranking;
 * a workload without a class ranks 0), then arrival (createdAt, then key). Across teams the next workload is
 * the best of the teams' heads: first those that fit within their team's guarantee (Kueue's entry ordering:
 * a workload that would borrow goes after them, so a reclaiming team is not overtaken by the requeued
 * borrower it preempted), then by rank, then, with fair share on, the lower dominant resource share of its
 * team with the head admitted (Kueue's DRS: fair-share.ts), then arrival. Queues are BestEffortFIFO: a head
 * that does not fit is set aside and the next workload of its team becomes the head.
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
  const ranks = new Map<string | null, number>();
  for (const workload of pending) {
    let rank = ranks.get(workload.priorityClass);
    if (rank === undefined) {
      rank = rankOf(workload, settings);
      ranks.set(workload.priorityClass, rank);
    }
    const queue = queues.get(workload.team) ?? [];
    queue.push({ workload, rank });
    queues.set(workload.team, queue);
  }
  for (const queue of queues.values()) queue.sort(compareInTeam);
  return queues;
}

/**
 * A team's queue and how far admission has got in it; `share` is its team's share and `nominal` whether its
 * head fits within the team's guarantee, both as last keyed.
 */
export type Cursor = {
  team: string;
  queue: readonly Queued[];
  index: number;
  share: number;
  nominal?: boolean;
};

function before(a: Cursor, b: Cursor): boolean {
  const headA = a.queue[a.index];
  const headB = b.queue[b.index];
  if (headA === undefined || headB === undefined) return headB === undefined && headA !== undefined;
  if (a.nominal !== b.nominal) return a.nominal === true;
  if (headA.rank !== headB.rank) return headA.rank > headB.rank;
  if (a.share !== b.share) return a.share < b.share;
  return byArrival(headA, headB) < 0;
}

/**
 * The teams' heads in admission order, as a binary heap of cursors (no allocation per step). A team's share
 * rises only when it admits (its cursor is re-keyed when it comes back) and falls only when it loses
 * victims: after a preemption, `rekey()`.
 */
export class HeadQueue {
  private heap: Cursor[] = [];

  constructor(
    private readonly cursors: readonly Cursor[],
    private readonly ledger: Ledger,
  ) {
    this.rekey();
  }

  /** Shares computed, per cursor: valid while the team's usage and the head stay. */
  private readonly shares = new Map<Cursor, { version: number; index: number; share: number }>();

  /** The team's share with its head admitted, as Kueue ranks its heads (DominantResourceShareWith). */
  private shareOf(cursor: Cursor): number {
    const head = cursor.queue[cursor.index];
    if (!this.ledger.limits.settings.fairShare || head === undefined) return 0;
    const known = this.shares.get(cursor);
    const version = this.ledger.teamVersion(cursor.team);
    if (known && known.version === version && known.index === cursor.index) return known.share;
    const flavor = head.workload.flavors?.[0] ?? this.ledger.limits.flavors[0] ?? "";
    const share = dominantShare(this.ledger, cursor.team, {
      flavor,
      request: head.workload.request,
      sign: 1,
    });
    this.shares.set(cursor, { version, index: cursor.index, share });
    return share;
  }

  /** Whether the cursor's head fits within its team's guarantee (Kueue: those go before borrowers). */
  private nominalOf(cursor: Cursor): boolean {
    const head = cursor.queue[cursor.index];
    if (head === undefined) return false;
    const flavors = head.workload.flavors ?? this.ledger.limits.flavors;
    return this.ledger.withinNominal(cursor.team, flavors, head.workload.request);
  }

  rekey(): void {
    this.heap = [];
    for (const cursor of this.cursors) this.advanced(cursor);
  }

  /** The cursor whose head goes next; the caller advances it and hands it back with `advanced`. */
  next(): Cursor | null {
    for (let top = this.pop(); top !== undefined; top = this.pop()) {
      const share = this.shareOf(top);
      const nominal = this.nominalOf(top);
      if (share === top.share && nominal === top.nominal) return top;
      top.share = share;
      top.nominal = nominal;
      this.push(top);
    }
    return null;
  }

  advanced(cursor: Cursor): void {
    if (cursor.index >= cursor.queue.length) return;
    cursor.share = this.shareOf(cursor);
    cursor.nominal = this.nominalOf(cursor);
    this.push(cursor);
  }

  private push(cursor: Cursor): void {
    const heap = this.heap;
    heap.push(cursor);
    let at = heap.length - 1;
    while (at > 0) {
      const up = (at - 1) >> 1;
      const parent = heap[up];
      if (parent === undefined || !before(cursor, parent)) break;
      heap[at] = parent;
      at = up;
    }
    heap[at] = cursor;
  }

  private pop(): Cursor | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    this.sink(last);
    return top;
  }

  private sink(cursor: Cursor): void {
    const heap = this.heap;
    let at = 0;
    for (;;) {
      const child = this.smallerChild(at);
      const entry = heap[child];
      if (entry === undefined || !before(entry, cursor)) break;
      heap[at] = entry;
      at = child;
    }
    heap[at] = cursor;
  }

  private smallerChild(at: number): number {
    const left = this.heap[2 * at + 1];
    const right = this.heap[2 * at + 2];
    return right !== undefined && left !== undefined && before(right, left) ? 2 * at + 2 : 2 * at + 1;
  }
}
