/**
 * A controller workqueue (client-go style): keys are deduplicated, one key never runs concurrently with
 * itself, failures are retried with exponential backoff and jitter, and a handler may ask to run again
 * after a delay (periodic polling of a job's agents).
 */
export type HandlerResult = { requeueAfterMs?: number } | undefined;
export type Handler = (key: string) => Promise<HandlerResult>;

export type WorkQueue = {
  add(key: string): void;
  /** As add, but ahead of the keys waiting (a decision is waiting on it, e.g. an admission). */
  addFirst(key: string): void;
  addAfter(key: string, delayMs: number): void;
  /** Keys waiting or running. */
  depth(): number;
  /** Waits for running handlers and stops; pending keys are dropped. */
  shutdown(): Promise<void>;
};

export type WorkQueueOptions = {
  workers: number;
  handler: Handler;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (key: string, error: unknown) => void;
  random?: () => number;
};

export function createWorkQueue(opts: WorkQueueOptions): WorkQueue {
  const queue: string[] = [];
  const queued = new Set<string>();
  const running = new Set<string>();
  const dirty = new Set<string>();
  const timers = new Map<string, NodeJS.Timeout>();
  const failures = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const base = opts.baseBackoffMs ?? 100;
  const max = opts.maxBackoffMs ?? 30_000;
  const random = opts.random ?? Math.random;

  const add = (key: string) => {
    if (stopped) return;
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(key);
    pump();
  };

  const addFirst = (key: string) => {
    if (stopped) return;
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (queued.has(key)) queue.splice(queue.indexOf(key), 1);
    queued.add(key);
    queue.unshift(key);
    pump();
  };

  const addAfter = (key: string, delayMs: number) => {
    if (stopped) return;
    const existing = timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      timers.delete(key);
      add(key);
    }, delayMs);
    timers.set(key, timer);
  };

  const finish = (key: string, result: HandlerResult | Error) => {
    running.delete(key);
    if (result instanceof Error) {
      const count = (failures.get(key) ?? 0) + 1;
      failures.set(key, count);
      opts.onError?.(key, result);
      const delay = Math.min(max, base * 2 ** (count - 1)) * (0.5 + random());
      addAfter(key, delay);
    } else {
      failures.delete(key);
      if (result?.requeueAfterMs !== undefined) addAfter(key, result.requeueAfterMs);
    }
    if (dirty.delete(key)) add(key);
    pump();
  };

  function pump() {
    while (!stopped && running.size < opts.workers && queue.length > 0) {
      const key = queue.shift() as string;
      queued.delete(key);
      running.add(key);
      const task = opts
        .handler(key)
        .then(
          (result) => finish(key, result),
          (error: unknown) => finish(key, error instanceof Error ? error : new Error(String(error))),
        )
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
  }

  return {
    add,
    addFirst,
    addAfter,
    depth: () => queue.length + running.size,
    async shutdown() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      queue.length = 0;
      queued.clear();
      await Promise.all([...inFlight]);
    },
  };
}
