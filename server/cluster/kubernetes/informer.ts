import { type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Logger } from "@/server/log";

/**
 * A list-then-watch cache of one kind of object (an informer): list once, then watch from the list's
 * resourceVersion and apply every ADDED/MODIFIED/DELETED to the store. It never gives up:
 * - the watch ends (server timeout, connection cut): watch again from the last resourceVersion seen;
 * - 410 Gone ("too old resource version", compaction): list again and replace the store;
 * - a watch that goes silent (no event, not even a bookmark, for `stallMs`): abort it and watch again;
 * - any error: retry with exponential backoff (250 ms doubling to 30 s, jittered), reset on success.
 * Objects written by this process can be put into the store at once (`upsert`/`remove`) so a reconcile
 * that runs before the watch event arrives sees its own writes; the watch event later replaces them.
 */

export type KubeObject = {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
};

export type ObjectList<T> = { items: T[]; metadata?: { resourceVersion?: string } };

export type InformerEvent = "ADDED" | "MODIFIED" | "DELETED" | "RELISTED";

export type Informer<T extends KubeObject> = {
  /** Resolves once the first list is in the store. */
  start(): Promise<void>;
  stop(): void;
  get(key: string): T | undefined;
  list(): T[];
  upsert(object: T): void;
  /** Forgets an object this process deleted; later events for that uid are ignored. */
  remove(object: T): void;
  /** Counters for tests and metrics: lists, watches started, 410s, stalls detected. */
  readonly stats: { lists: number; watches: number; gone: number; stalls: number; errors: number };
};

export type InformerOptions<T extends KubeObject> = {
  name: string;
  kubeConfig: KubeConfig;
  list: () => Promise<ObjectList<T>>;
  /** API path of the collection, e.g. /api/v1/pods or /apis/<group>/<version>/<plural>. */
  watchPath: string;
  query?: Record<string, string>;
  onEvent?: (type: InformerEvent, object: T | null) => void;
  log: Logger;
  /** Server-side watch timeout; the server ends the watch after about this long. */
  watchTimeoutSeconds?: number;
  /** A watch with no event for this long is considered stalled and replaced. */
  stallMs?: number;
  /**
   * Every change of the store, whatever made it (watch event, relist, upsert, remove): the object stored
   * under `key` before and after (undefined: none). Lets an owner keep indexes in step with the store, so
   * its reads touch the objects they need instead of scanning every object.
   */
  onStore?: (key: string, before: T | undefined, after: T | undefined) => void;
};

export const objectKey = (object: KubeObject): string =>
  object.metadata?.namespace
    ? `${object.metadata.namespace}/${object.metadata.name}`
    : (object.metadata?.name ?? "");

const uidOf = (object: KubeObject): string => object.metadata?.uid ?? "";
const versionOf = (object: KubeObject | undefined): number => Number(object?.metadata?.resourceVersion ?? 0);

const MIN_BACKOFF_MS = 250;
/** Deleted objects remembered (uids, ~40 bytes each): far more than one reconcile's creates in flight. */
const TOMBSTONES = 16_384;
const MAX_BACKOFF_MS = 30_000;

function statusCode(error: unknown): number | undefined {
  const value = (error as { statusCode?: unknown; code?: unknown } | null) ?? {};
  const code = value.statusCode ?? value.code;
  return typeof code === "number" ? code : undefined;
}

export function createInformer<T extends KubeObject>(opts: InformerOptions<T>): Informer<T> {
  const store = new Map<string, T>();
  /**
   * Objects known deleted (a DELETED event, or removed by us): their later events and an answer to our own
   * create that arrives after the watch reported the object gone do not bring them back. A pod deleted right
   * after we created it (by its node's controller, a user) was otherwise put back into the store by the
   * create's answer, and the job waited on it forever. Oldest forgotten first past TOMBSTONES.
   */
  const deletedUids = new Set<string>();
  const tombstone = (uid: string) => {
    if (!uid) return;
    deletedUids.delete(uid);
    deletedUids.add(uid);
    const oldest = deletedUids.values().next().value;
    if (deletedUids.size > TOMBSTONES && oldest !== undefined) deletedUids.delete(oldest);
  };
  const stats = { lists: 0, watches: 0, gone: 0, stalls: 0, errors: 0 };
  const watchTimeoutSeconds = opts.watchTimeoutSeconds ?? 300;
  const stallMs = opts.stallMs ?? (watchTimeoutSeconds + 30) * 1000;
  const watcher = new Watch(opts.kubeConfig);
  let resourceVersion = "";
  let stopped = false;
  let backoffMs = MIN_BACKOFF_MS;
  let current: AbortController | null = null;
  let stallTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let firstSync: { resolve: () => void; reject: (error: unknown) => void } | null = null;

  const isNewer = (incoming: T, existing: T | undefined) => versionOf(incoming) >= versionOf(existing);

  const put = (key: string, object: T) => {
    const before = store.get(key);
    store.set(key, object);
    opts.onStore?.(key, before, object);
  };
  const drop = (key: string) => {
    const before = store.get(key);
    if (!store.delete(key)) return;
    opts.onStore?.(key, before, undefined);
  };

  const apply = (type: "ADDED" | "MODIFIED" | "DELETED", object: T) => {
    const key = objectKey(object);
    const uid = uidOf(object);
    if (type === "DELETED") {
      // A late DELETED of an earlier object of this name leaves its successor (created since) in place.
      const stored = store.get(key);
      if (!stored || uidOf(stored) === uid) drop(key);
      tombstone(uid);
    } else if (deletedUids.has(uid)) {
      return;
    } else if (isNewer(object, store.get(key))) {
      put(key, object);
    }
    opts.onEvent?.(type, object);
  };

  const relist = async () => {
    const listed = await opts.list();
    stats.lists += 1;
    for (const key of [...store.keys()]) drop(key);
    for (const item of listed.items.filter((candidate) => !deletedUids.has(uidOf(candidate)))) {
      put(objectKey(item), item);
    }
    resourceVersion = listed.metadata?.resourceVersion ?? "";
    opts.onEvent?.("RELISTED", null);
  };

  const scheduleRetry = (why: string, error?: unknown) => {
    if (stopped) return;
    stats.errors += 1;
    const delay = backoffMs * (0.8 + Math.random() * 0.4);
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    opts.log.warn("informer retrying", {
      informer: opts.name,
      why,
      inMs: Math.round(delay),
      ...(error ? { error: String(error) } : {}),
    });
    retryTimer = setTimeout(() => void run(), delay);
  };

  const armStallTimer = (controller: AbortController) => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => {
      if (current !== controller || stopped) return;
      stats.stalls += 1;
      opts.log.warn("watch stalled; starting a new one", { informer: opts.name, silentMs: stallMs });
      current = null;
      controller.abort();
      void run();
    }, stallMs);
  };

  /** Every watch event but ERROR (BOOKMARK included) moves the resourceVersion to watch from next. */
  const handleEvent = (type: string, object: T) => {
    resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
    if (type !== "ADDED" && type !== "MODIFIED" && type !== "DELETED") return;
    backoffMs = MIN_BACKOFF_MS;
    apply(type, object);
  };

  /** Called once per watch when it ends: continue from the last resourceVersion, relist, or back off. */
  const watchEnded = (outcome: { gone: boolean; error: unknown }) => {
    clearTimeout(stallTimer);
    if (stopped) return;
    if (outcome.gone || statusCode(outcome.error) === 410) {
      stats.gone += 1;
      resourceVersion = "";
      void run();
    } else if (outcome.error) scheduleRetry("watch failed", outcome.error);
    else void run();
  };

  const watch = async () => {
    stats.watches += 1;
    const query = {
      ...opts.query,
      resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(watchTimeoutSeconds),
    };
    // `watcher.watch` reports a failed request through `done` before it returns the controller.
    const attempt: { controller: AbortController | null; ended: { gone: boolean; error: unknown } | null } = {
      controller: null,
      ended: null,
    };
    let gone = false;
    const onEvent = (type: string, object: unknown) => {
      if (attempt.controller) armStallTimer(attempt.controller);
      if (type === "ERROR") gone ||= statusCode(object) === 410;
      else handleEvent(type, object as T);
    };
    const onDone = (error: unknown) => {
      if (attempt.ended) return;
      attempt.ended = { gone, error };
      if (!attempt.controller || current !== attempt.controller) return;
      current = null;
      watchEnded(attempt.ended);
    };
    const controller = await watcher.watch(opts.watchPath, query, onEvent, onDone);
    attempt.controller = controller;
    if (stopped) controller.abort();
    else if (attempt.ended) watchEnded(attempt.ended);
    else {
      current = controller;
      armStallTimer(controller);
    }
  };

  const failed = (error: unknown) => {
    const code = statusCode(error);
    if (code === 410) resourceVersion = "";
    // Not allowed to list at all: a set-up error to report, not to retry forever.
    if (code === 403 && firstSync) {
      firstSync.reject(error);
      firstSync = null;
      return;
    }
    scheduleRetry(resourceVersion ? "watch failed" : "list failed", error);
  };

  const run = async () => {
    if (stopped) return;
    try {
      if (!resourceVersion) await relist();
      firstSync?.resolve();
      firstSync = null;
      await watch();
    } catch (error) {
      failed(error);
    }
  };

  return {
    stats,
    start() {
      return new Promise<void>((resolve, reject) => {
        firstSync = { resolve, reject };
        void run();
      });
    },
    stop() {
      stopped = true;
      clearTimeout(stallTimer);
      clearTimeout(retryTimer);
      current?.abort();
      current = null;
    },
    get: (key) => store.get(key),
    list: () => [...store.values()],
    upsert(object) {
      if (deletedUids.has(uidOf(object))) return;
      if (isNewer(object, store.get(objectKey(object)))) put(objectKey(object), object);
    },
    remove(object) {
      const key = objectKey(object);
      if (uidOf(store.get(key) ?? object) === uidOf(object)) drop(key);
      tombstone(uidOf(object));
    },
  };
}
