/**
 * Server push for every live view (issue 13): one shared loop per data source, whatever the number of viewers.
 *
 * A *source* is a key, an interval, a `load` and a `diff`. The first viewer of a key starts its loop; the loop
 * loads every `intervalMs`, diffs against the last value once, and hands the same patch to every viewer; the
 * last viewer leaving stops it. A viewer gets the latest whole value first (`snapshot`), then patches. A viewer
 * that falls behind (more than MAX_QUEUED messages waiting, a stalled connection) gets one fresh snapshot
 * instead of the backlog, so a slow TV never holds memory for the others.
 *
 * Several sources reading the same thing (the jobs list per readable-namespace set, the TV views per share
 * scope) share the read with `cached`: concurrent and recent callers of one key get one promise.
 */
/**
 * A loop waits at least this many times its last read's duration before the next read. A 2,048-rank job's
 * page reads in well under its 250 ms interval; a 16,384-rank one's read takes most of a second of the
 * console's one thread, and reading it again 250 ms later would leave little for anything else (other pages,
 * TV streams, sign-ins): it is read less often instead.
 */
export const BUSY_GAP_FACTOR = 2;

export type LiveSource<T, P> = {
  /** One loop per key: put everything that changes the value (scope, view, job) in it. */
  key: string;
  intervalMs: number;
  load: () => Promise<T>;
  /** What changed from `previous` to `next`; null when a viewer would see no difference. */
  diff: (previous: T, next: T) => P | null;
};

export type LiveMessage<T, P> =
  | { kind: "snapshot"; value: T }
  | { kind: "patch"; patch: P }
  /** The last load failed; viewers keep the last value they have and show `message`. */
  | { kind: "unavailable"; message: string };

/** Messages a viewer may have waiting before it is sent a snapshot instead. */
export const MAX_QUEUED = 16;

type Viewer<T, P> = {
  queue: Array<LiveMessage<T, P>>;
  wake: (() => void) | null;
};

/** A shared read: `expiresAt` null while it is in flight. */
type MemoEntry = { expiresAt: number | null; value: Promise<unknown> };
/** Past this many remembered reads, settled and expired ones are dropped. */
const SWEEP_AT = 64;

type Loop<T, P> = {
  source: LiveSource<T, P>;
  viewers: Set<Viewer<T, P>>;
  value: { current: T } | null;
  failed: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** A load is under way; `again`: a refresh came during it, so the next load starts as soon as it ends. */
  loading: boolean;
  again: boolean;
  stopped: boolean;
};

export type LiveHub = {
  stream<T, P>(source: LiveSource<T, P>, signal?: AbortSignal): AsyncGenerator<LiveMessage<T, P>, void>;
  cached<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /**
   * Something changed that live views may show (a mutation through this console): every shared read is
   * dropped and every loop loads now instead of at its next interval, so the change reaches viewers in one
   * load rather than up to an interval plus a read's age. Viewers still get only real differences.
   */
  refresh(): void;
  /** Loops running now and viewers attached (for tests, the benchmark and /metrics). */
  stats(): { loops: number; viewers: number };
};

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A viewer past MAX_QUEUED gets the latest value whole instead of its backlog (an outage still said after it). */
function enqueue<T, P>(viewer: Viewer<T, P>, message: LiveMessage<T, P>, latest: { current: T } | null) {
  if (viewer.queue.length < MAX_QUEUED || latest === null) {
    viewer.queue.push(message);
    return;
  }
  viewer.queue = [{ kind: "snapshot", value: latest.current }];
  if (message.kind === "unavailable") viewer.queue.push(message);
}

export function createLiveHub(): LiveHub {
  // biome-ignore lint/suspicious/noExplicitAny: one map holds loops of every value type; each is used with its own
  const loops = new Map<string, Loop<any, any>>();
  const memo = new Map<string, MemoEntry>();

  const deliver = <T, P>(loop: Loop<T, P>, message: LiveMessage<T, P>) => {
    for (const viewer of loop.viewers) {
      enqueue(viewer, message, loop.value);
      viewer.wake?.();
    }
  };

  /** A fresh value: the first goes out whole, later ones as the diff (whole again after a failure). */
  const received = <T, P>(loop: Loop<T, P>, next: T) => {
    const previous = loop.value;
    if (previous === null || loop.failed !== null) {
      loop.value = { current: next };
      loop.failed = null;
      deliver(loop, { kind: "snapshot", value: next });
      return;
    }
    // Diffed before the value moves on, so a diff that throws leaves viewers and loop agreeing.
    const patch = loop.source.diff(previous.current, next);
    loop.value = { current: next };
    if (patch !== null) deliver(loop, { kind: "patch", patch });
  };

  /** A failed load: said once per distinct message; viewers keep what they have. */
  const failed = <T, P>(loop: Loop<T, P>, error: unknown) => {
    const message = errorText(error);
    if (loop.failed !== message) deliver(loop, { kind: "unavailable", message });
    loop.failed = message;
  };

  const tick = async <T, P>(loop: Loop<T, P>) => {
    loop.timer = null;
    if (loop.stopped) return;
    const started = Date.now();
    loop.loading = true;
    loop.again = false;
    // A load that throws before returning its promise, or a diff that throws, is a failed load: the loop
    // goes on (a loop that died here would leave its viewers waiting forever).
    const outcome = await Promise.resolve()
      .then(() => loop.source.load())
      .then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    if (loop.stopped) return;
    try {
      if (outcome.ok) received(loop, outcome.value);
      else failed(loop, outcome.error);
    } catch (error) {
      failed(loop, error);
    }
    loop.loading = false;
    const gap = Math.max(loop.source.intervalMs, BUSY_GAP_FACTOR * (Date.now() - started));
    loop.timer = setTimeout(() => void tick(loop), loop.again ? 0 : gap);
  };

  const refresh = () => {
    memo.clear();
    for (const loop of loops.values()) {
      if (loop.loading) {
        loop.again = true;
        continue;
      }
      if (loop.timer) clearTimeout(loop.timer);
      loop.timer = setTimeout(() => void tick(loop), 0);
    }
  };

  const attach = <T, P>(source: LiveSource<T, P>, viewer: Viewer<T, P>): Loop<T, P> => {
    const running = loops.get(source.key) as Loop<T, P> | undefined;
    if (running) {
      running.viewers.add(viewer);
      if (running.value) viewer.queue.push({ kind: "snapshot", value: running.value.current });
      if (running.failed !== null) viewer.queue.push({ kind: "unavailable", message: running.failed });
      return running;
    }
    const loop: Loop<T, P> = {
      source,
      viewers: new Set([viewer]),
      value: null,
      failed: null,
      timer: null,
      loading: false,
      again: false,
      stopped: false,
    };
    loops.set(source.key, loop);
    void tick(loop);
    return loop;
  };

  const detach = <T, P>(loop: Loop<T, P>, viewer: Viewer<T, P>) => {
    loop.viewers.delete(viewer);
    if (loop.viewers.size > 0) return;
    loop.stopped = true;
    if (loop.timer) clearTimeout(loop.timer);
    if (loops.get(loop.source.key) === loop) loops.delete(loop.source.key);
  };

  async function* stream<T, P>(
    source: LiveSource<T, P>,
    signal?: AbortSignal,
  ): AsyncGenerator<LiveMessage<T, P>, void> {
    const viewer: Viewer<T, P> = { queue: [], wake: null };
    const loop = attach(source, viewer);
    const onAbort = () => viewer.wake?.();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal?.aborted) {
        const message = viewer.queue.shift();
        if (message) {
          yield message;
          continue;
        }
        await new Promise<void>((resolve) => {
          viewer.wake = resolve;
        });
        viewer.wake = null;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      detach(loop, viewer);
    }
  }

  /** Drops reads that are settled and past their time (keys that nobody asks for any more). */
  const sweep = (now: number) => {
    for (const [key, entry] of memo) if (entry.expiresAt !== null && entry.expiresAt <= now) memo.delete(key);
  };

  function cached<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = memo.get(key);
    // A read in flight is shared however long it takes; a settled one for ttlMs after it settled.
    if (hit && (hit.expiresAt === null || now < hit.expiresAt)) return hit.value as Promise<T>;
    if (memo.size >= SWEEP_AT) sweep(now);
    const value = Promise.resolve().then(load);
    const entry: MemoEntry = { expiresAt: null, value };
    memo.set(key, entry);
    value.then(
      () => {
        entry.expiresAt = Date.now() + ttlMs;
      },
      // A failed read is not kept: the next caller tries again.
      () => {
        if (memo.get(key) === entry) memo.delete(key);
      },
    );
    return value;
  }

  return {
    stream,
    cached,
    refresh,
    stats: () => ({
      loops: loops.size,
      viewers: [...loops.values()].reduce((sum, loop) => sum + loop.viewers.size, 0),
    }),
  };
}
