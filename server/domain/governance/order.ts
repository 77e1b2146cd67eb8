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

type Entry = { cursor: Cursor; head: Queued; share: number };

function before(a: Entry, b: Entry): boolean {
  if (a.head.rank !== b.head.rank) return a.head.rank > b.head.rank;
  if (a.share !== b.share) return a.share < b.share;
  return byArrival(a.head, b.head) < 0;
}

/**
 * The teams' heads in admission order, as a binary heap. A team's share rises only when it admits (its entry
 * is re-keyed when it comes back) and falls only when it loses victims: after a preemption, `rekey()`.
 */
export class HeadQueue {
  private heap: Entry[] = [];

  constructor(
    private readonly cursors: readonly Cursor[],
    private readonly ledger: Ledger,
  ) {
    this.rekey();
  }

  private entry(cursor: Cursor): Entry | null {
    const head = cursor.queue[cursor.index];
    if (head === undefined) return null;
    const share = this.ledger.limits.settings.fairShare ? this.ledger.share(cursor.team) : 0;
    return { cursor, head, share };
  }

  rekey(): void {
    this.heap = [];
    for (const cursor of this.cursors) this.push(this.entry(cursor));
  }

  /** The cursor whose head goes next; the caller advances it and hands it back with `advanced`. */
  next(): Cursor | null {
    for (let top = this.pop(); top !== undefined; top = this.pop()) {
      const fresh = this.entry(top.cursor);
      if (fresh === null) continue;
      if (fresh.share === top.share) return top.cursor;
      this.push(fresh);
    }
    return null;
  }

  advanced(cursor: Cursor): void {
    this.push(this.entry(cursor));
  }

  private push(entry: Entry | null): void {
    if (entry === null) return;
    const heap = this.heap;
    heap.push(entry);
    let at = heap.length - 1;
    while (at > 0) {
      const up = (at - 1) >> 1;
      const parent = heap[up];
      if (parent === undefined || !before(entry, parent)) break;
      heap[at] = parent;
      at = up;
    }
    heap[at] = entry;
  }

  private pop(): Entry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    this.sink(last);
    return top;
  }

  private sink(entry: Entry): void {
    const heap = this.heap;
    let at = 0;
    for (;;) {
      const child = this.smallerChild(at);
      if (child === null || !before(child.entry, entry)) break;
      heap[at] = child.entry;
      at = child.at;
    }
    heap[at] = entry;
  }

  private smallerChild(at: number): { at: number; entry: Entry } | null {
    const left = this.heap[2 * at + 1];
    const right = this.heap[2 * at + 2];
    if (left === undefined) return null;
    if (right !== undefined && before(right, left)) return { at: 2 * at + 2, entry: right };
    return { at: 2 * at + 1, entry: left };
  }
}
