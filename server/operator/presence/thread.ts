import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Logger } from "@/server/log";
import { bundleWorkerSource } from "@/server/worker-bundle";
import {
  identityOf,
  isWatched,
  type Mode,
  type Presence,
  type PresenceConfig,
  type PresenceCounters,
  type PresenceStats,
  podKey,
  type ViewChange,
  type ViewHolder,
  type WakeListener,
  type WatchedPod,
  watchedPods,
} from "./presence";
import { readView, warnUnreadable } from "./read-view";

/**
 * Presence on a thread of its own (README.md beside this file, "Its own thread"). The watch streams, their
 * heartbeats (~8,000 reads/s at 2,048 pods) and the silence sweep run in a worker (thread-main.ts), whose
 * event loop no reconcile holds up: a long synchronous reconcile of a large job can no longer delay reading
 * an agent's heartbeat, nor the judgement of one that stopped. The operator's thread keeps a mirror of each
 * agent's view, kept current by the worker's messages, so `pushed()` stays a synchronous map lookup.
 *
 * Until the thread is up (the bundle is built at start, ~0.2 s) every agent is polled, as before an agent
 * answers its watch. If the thread dies, that is logged and every agent is polled from then on.
 */

export type ToThread =
  | { type: "sync"; jobKey: string; pods: WatchedPod[] }
  | { type: "forget"; jobKey: string }
  | { type: "stop" };

export type FromThread =
  | { type: "view"; change: ViewChange }
  | { type: "wake"; jobKey: string; urgent: boolean }
  | { type: "log"; level: "info" | "warn" | "error"; msg: string; fields: Record<string, unknown> }
  | {
      type: "counts";
      lines: number;
      heartbeats: number;
      silences: number;
      lateTicks: number;
      correlated: number;
    };

type Mirrored = ViewHolder & { jobKey: string; identity: string; mode: Mode; namespace: string; pod: string };

const ENTRY = path.relative(process.cwd(), fileURLToPath(new URL("./thread-main.ts", import.meta.url)));
/** Beside the operator's bundle (scripts/lib/operator-build.ts, one flat folder), the thread is built. */
const PREBUILT = new URL("./presence-thread.mjs", import.meta.url);
const WORKER_YOUNG_MB = 8;

/**
 * The worker: the bundle's presence-thread.mjs when the operator runs bundled, else thread-main.ts bundled
 * here at its start (tsx cannot start a .ts worker itself).
 */
export async function startPresenceWorker(config: PresenceConfig, prebuilt = PREBUILT): Promise<Worker> {
  const options = {
    workerData: config,
    // Its garbage is small and short-lived (heartbeat chunks): a small young generation, collected often
    // in ~1 ms, instead of V8's default that grows to tens of MB under 8,000 reads a second.
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  };
  const worker = existsSync(prebuilt)
    ? new Worker(prebuilt, options)
    : new Worker(await bundleWorkerSource(ENTRY), { ...options, eval: true });
  worker.unref();
  return worker;
}

/** A pod's mirror key and identity, once per pod object (the back ends convert a pod once per version). */
const names = new WeakMap<WatchedPod, { key: string; identity: string }>();
const namesOf = (pod: WatchedPod) => {
  let known = names.get(pod);
  if (!known) {
    known = { key: podKey(pod), identity: identityOf(pod) };
    names.set(pod, known);
  }
  return known;
};

/** The same pods, by what presence reads of them: a sync that changes nothing is not sent. */
const samePods = (a: readonly WatchedPod[], b: readonly WatchedPod[]) =>
  a.length === b.length &&
  a.every((pod, index) => {
    const other = b[index] as WatchedPod;
    return namesOf(pod).key === namesOf(other).key && namesOf(pod).identity === namesOf(other).identity;
  });

const NOTHING_CHANGED: ReadonlySet<string> = new Set();

export function createPresenceThread(deps: {
  config: PresenceConfig;
  log: Logger;
  metrics: PresenceCounters;
  start?: (config: PresenceConfig) => Promise<Worker>;
  /** The credential of the pod whose agent listens at a URL (the back end's); absent: none sent. */
  credentialFor?: (agentUrl: string) => string | null;
}): Presence {
  const mirror = new Map<string, Mirrored>();
  /**
   * What each job's last sync sent, and the list it came from: a reconcile of a running job sends nothing
   * new (no 2,048-pod copy), and when the back end answers the same list (nothing changed), compares nothing.
   */
  const synced = new Map<string, { from: readonly WatchedPod[]; watched: WatchedPod[] }>();
  const listeners = new Set<WakeListener>();
  const skipped = { lateTicks: 0, correlated: 0 };
  /** Per job, the pods whose mirrored view changed since the job's reconcile last asked (takeChanged). */
  const changed = new Map<string, Set<string>>();
  const markChanged = (jobKey: string, key: string) => {
    let keys = changed.get(jobKey);
    if (!keys) {
      keys = new Set();
      changed.set(jobKey, keys);
    }
    keys.add(key);
  };
  /** The newest message per job while the thread starts (null once it failed: nothing is sent). */
  let pending: Map<string, ToThread> | null = new Map();
  let worker: Worker | null = null;
  let stopped = false;

  const send = (jobKey: string, message: ToThread) => {
    if (worker) worker.postMessage(message);
    else pending?.set(jobKey, message);
  };

  const fail = (why: string) => {
    if (stopped || pending === null) return;
    deps.log.error("presence thread ended: every agent is polled from now on", { why });
    pending = null;
    worker = null;
    mirror.clear();
    changed.clear();
  };

  const received = (message: FromThread) => {
    if (stopped) return;
    switch (message.type) {
      case "view":
        return mirrorView(message.change);
      case "wake":
        for (const listener of listeners) listener(message.jobKey, message.urgent);
        return;
      case "log":
        return deps.log[message.level](message.msg, message.fields);
      case "counts":
        deps.metrics.agentPushLines.inc(message.lines);
        deps.metrics.agentHeartbeats.inc(message.heartbeats);
        deps.metrics.agentSilences.inc(message.silences);
        skipped.lateTicks = message.lateTicks;
        skipped.correlated = message.correlated;
        return;
    }
  };

  const mirrorView = (change: ViewChange) => {
    if ("removed" in change) {
      const gone = mirror.get(change.key);
      if (gone) markChanged(gone.jobKey, change.key);
      return void mirror.delete(change.key);
    }
    markChanged(change.jobKey, change.key);
    const [namespace = "", pod = ""] = change.key.split("/");
    mirror.set(change.key, { ...change, namespace, pod });
  };

  (deps.start ?? startPresenceWorker)(deps.config).then(
    (started) => {
      if (stopped || pending === null) return void started.terminate();
      started.on("message", received);
      started.on("error", (error) => fail(String(error)));
      started.on("exit", (code) => fail(`exit code ${code}`));
      worker = started;
      for (const message of pending.values()) started.postMessage(message);
      pending.clear();
    },
    (error: unknown) => fail(`could not start: ${String(error)}`),
  );

  return {
    sync(jobKey, pods) {
      const before = synced.get(jobKey);
      if (before?.from === pods) return;
      const watched = pods.filter(isWatched);
      synced.set(jobKey, { from: pods, watched });
      if (before && samePods(before.watched, watched)) return;
      const withCredentials = deps.credentialFor
        ? watched.map((pod) => ({ ...pod, credential: deps.credentialFor?.(pod.agentUrl ?? "") ?? null }))
        : watched;
      send(jobKey, { type: "sync", jobKey, pods: watchedPods(withCredentials) });
    },
    pushed(pod) {
      const { key, identity } = namesOf(pod);
      const entry = mirror.get(key);
      if (entry?.identity !== identity) return null;
      if (entry.read !== undefined) return entry.read;
      return readView(entry, warnUnreadable(deps.log, entry.namespace, entry.pod));
    },
    takeChanged(jobKey) {
      // Once the thread has failed, every pod's answer changed to null at once: nothing is kept.
      if (stopped || pending === null) return null;
      const keys = changed.get(jobKey) ?? NOTHING_CHANGED;
      changed.delete(jobKey);
      return keys;
    },
    forgetJob(jobKey) {
      synced.delete(jobKey);
      changed.delete(jobKey);
      for (const [key, entry] of mirror) if (entry.jobKey === jobKey) mirror.delete(key);
      send(jobKey, { type: "forget", jobKey });
    },
    onWake(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stats() {
      const stats: PresenceStats = { pushing: 0, polled: 0, probing: 0, silent: 0, ...skipped };
      for (const entry of mirror.values()) {
        stats[entry.mode] += 1;
        if (entry.view?.kind === "silent") stats.silent += 1;
      }
      return stats;
    },
    stop() {
      stopped = true;
      mirror.clear();
      changed.clear();
      listeners.clear();
      // The thread closes its watches and ends; terminated if it has not within a second.
      const running = worker;
      worker = null;
      running?.postMessage({ type: "stop" } satisfies ToThread);
      if (running) setTimeout(() => void running.terminate(), 1000).unref();
    },
  };
}
