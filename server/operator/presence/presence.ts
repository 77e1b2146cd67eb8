import { urgentKey, type WatchedStatus } from "@/server/agent/watch";
import type { ClusterPod } from "@/server/cluster/types";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import type { Logger } from "@/server/log";
import { openWatch, type WatchEvents, type WatchHandle } from "./watch-client";

/**
 * What the operator knows of each pod's agent without asking it (README.md beside this file): one watch
 * stream per Running pod with an agent address, the newest /status it pushed and when anything (a line, a
 * heartbeat) was last heard. An agent that answers the watch with 404 does not push: it is "polled"
 * (observe.ts polls it as before). A pushing agent heard of for longer than the silence threshold is judged
 * silent: one "agent silent" log line, a metric, and its job woken.
 *
 * A pod is its namespace/name plus its creation time and agent address: a replacement pod is a new agent.
 * Silence is judged by one sweep timer for all agents, after pending I/O has been read (setImmediate after
 * the tick), and never on a tick that ran late by more than a quarter of the threshold: a slow or stalled
 * operator has not read what its agents sent, so it must not call them silent.
 */

export type PresenceConfig = {
  heartbeatMs: number;
  silenceMs: number;
  sweepMs: number;
  connectTimeoutMs: number;
  /** Unheard this long, an agent is judged silent even when many are (a polled agent's unreachable timeout). */
  unreachableMs: number;
  /**
   * For this long after an agent started workers (it went to running, or a rank's restart count changed), it
   * is judged against unreachableMs, not silenceMs: starting workers can hold a busy host's agent for a
   * second (bench:goodput's full restarts on 2 cores: 64 trainers starting, agents unheard for 0.7–1.2 s,
   * each then a false fault and another full restart). Stopping workers, or waiting for /start, does not.
   */
  settleMs: number;
};

/**
 * The settling window by back end. The local back end runs every pod's agent and workers on this host's
 * cores, so a full restart starts all of a job's workers on the same few cores at once (10 s covers 64
 * trainers starting on 2 cores). On Kubernetes an agent shares CPUs only with its own pod's workers and is
 * judged against the silence threshold from the start: a settling window there delays finding an agent
 * that froze soon after a restart to the 3 s timeout (bench:k8s, 2,048 pods: two of 40 frozen agents
 * found at 964 and 1,209 ms, 0.3–0.5 s after their /start), and no false silence was seen without one.
 */
export const settleMsFor = (kind: "local" | "kubernetes") => (kind === "local" ? 10_000 : 0);

/**
 * The silence threshold by back end. On Kubernetes an agent's heartbeats compete only with its own pod, and
 * 700 ms (2.8 heartbeats) finds a frozen one in under a second. On the local back end every agent shares
 * this host's few cores with every trainer: bench:goodput (64 trainers on 2 cores, load ~5.5) saw a
 * healthy, steady agent unheard for 837 ms, judged silent, and its job restarted for nothing. 2 s there is
 * over twice that and still under the 3 s in which a polled agent is found unreachable.
 */
export const silenceMsFor = (kind: "local" | "kubernetes") => (kind === "local" ? 2000 : 700);

export const DEFAULT_PRESENCE_CONFIG: PresenceConfig = {
  heartbeatMs: 250,
  silenceMs: 700,
  sweepMs: 50,
  connectTimeoutMs: 3000,
  unreachableMs: 3000,
  settleMs: 10_000,
};

/** A pushing agent's view: its newest status, or silent since it was last heard. */
export type PushedView =
  | { kind: "status"; status: AgentStatus }
  | { kind: "silent"; lastHeardAt: number; detectedAt: number };

/**
 * A pushing agent's view as it crosses threads: the status line's text, checked only for JSON with a
 * `status` (the agent's state and ranks are read for urgency and settling); it is validated against the
 * /status schema where it is read (readView), once per line and only if read.
 */
export type WireView =
  | { kind: "status"; text: string }
  | { kind: "silent"; lastHeardAt: number; detectedAt: number };

/** A holder of a wire view and its reading, read once per view (the presence core's entries, the mirror). */
export type ViewHolder = { view: WireView | null; read?: PushedView | null };

/** urgent: a state changed or an agent fell silent (reconcile first); else progress (at most once a second). */
export type WakeListener = (jobKey: string, urgent: boolean) => void;

export type Dial = (input: {
  url: string;
  credential?: string | null;
  heartbeatMs: number;
  connectTimeoutMs: number;
  events: WatchEvents;
}) => WatchHandle;

/** What presence reads of a pod, and its agent's credential where the main thread added it (thread.ts). */
export type WatchedPod = Pick<ClusterPod, "namespace" | "name" | "phase" | "agentUrl" | "createdAt"> & {
  credential?: string | null;
};

export type PresenceStats = {
  pushing: number;
  polled: number;
  probing: number;
  silent: number;
  lateTicks: number;
  correlated: number;
};

/** What the reconcilers use: the same whether presence runs on this thread or its own (thread.ts). */
export type Presence = {
  /** The job's pods as they are now: a watch for each Running pod with an agent, none for the others. */
  sync(jobKey: string, pods: readonly WatchedPod[]): void;
  /** A pushing agent's view; null when it does not push or has not answered yet (poll it). */
  pushed(pod: WatchedPod): PushedView | null;
  /**
   * The job's pods (namespace/name keys) whose pushed() answer may have changed since the last call, and
   * forgets them; null when that is not known (read every pod). Only the job's reconcile calls it.
   */
  takeChanged(jobKey: string): ReadonlySet<string> | null;
  forgetJob(jobKey: string): void;
  onWake(listener: WakeListener): () => void;
  stats(): PresenceStats;
  stop(): void;
};

/**
 * The watches and the silence sweep themselves (what runs on the presence thread): an agent's view as it
 * stands, unread (`holder`; read-view.ts reads it), and the sweep's entry points exposed for tests.
 */
export type PresenceCore = Omit<Presence, "pushed" | "takeChanged"> & {
  holder(pod: WatchedPod): ViewHolder | null;
  /** The sweep's timer fired: judges silence after pending I/O unless it ran late. */
  onTimer(firedAt: number, expectedAt: number): void;
  /** Judges silence as of `at`. */
  judge(at: number): void;
};

export type Mode = "probing" | "pushing" | "polled";

/** One agent's entry as another thread mirrors it (thread.ts): null view unless it pushes and has spoken. */
export type ViewChange =
  | { key: string; jobKey: string; identity: string; mode: Mode; view: WireView | null }
  | { key: string; removed: true };

/** The counters presence adds to (server/operator/metrics.ts), or a thread's tally of them. */
export type PresenceCounters = Record<
  "agentPushLines" | "agentHeartbeats" | "agentSilences",
  { inc(value?: number): void }
>;

type Entry = {
  key: string;
  namespace: string;
  pod: string;
  jobKey: string;
  identity: string;
  url: string;
  /** Sent on the watch (Authorization), as on every call to the agent. */
  credential: string | null;
  mode: Mode;
  /** The newest line, and its urgency and start keys (the parsed line itself is not kept). */
  text: string | null;
  keys: { urgent: string; start: string } | null;
  /** Its reading for pushed() (readView), reset on each change. */
  holder: ViewHolder;
  lastHeardAt: number;
  /** Until then the agent is settling after a change (PresenceConfig.settleMs). */
  settlingUntil: number;
  silentAt: number | null;
  /**
   * Overdue with many others at once (a shared cause), until heard again: judged against the unreachable
   * timeout while the stall lasts, then against the silence threshold counted from its end, so the
   * stragglers of a shared stall (the last few whose lines come late) are not called silent.
   */
  excused: boolean;
  handle: WatchHandle | null;
  retryMs: number;
  retry: NodeJS.Timeout | undefined;
  closed: boolean;
};

/** What starts workers in an agent: going to running, and a rank's restart (its new process). */
const startKey = (status: WatchedStatus) =>
  `${status.status === "running"}|${(status.ranks ?? []).map((rank) => rank.restarts).join(",")}`;

/** The agent has started workers since the line with key `before` (not: stopped them, or waits for /start). */
const startedWorkers = (before: string | null, after: WatchedStatus, afterKey: string) =>
  after.status === "running" && before !== afterKey;

const FIRST_RETRY_MS = 20;
const MAX_RETRY_MS = 2000;
const PROGRESS_WAKE_MS = 1000;
/**
 * A silence is an isolated event. When more pushing agents than this (at least CORRELATED_MIN, else this
 * fraction of them) are overdue at once (unheard for two heartbeats), the cause is shared: this operator,
 * its network, or a host running many agents stalled. Nobody is judged before the unreachable timeout.
 */
/** 1 % of 2,048 pods frozen over 10 s (one every 0.5 s) has at most two or three overdue at a time. */
const CORRELATED_FRACTION = 0.0025;
const CORRELATED_MIN = 3;
const NOTE_EVERY_MS = 10_000;

export const identityOf = (pod: WatchedPod) => `${pod.createdAt} ${pod.agentUrl}`;
export const podKey = (pod: { namespace: string; name: string }) => `${pod.namespace}/${pod.name}`;

/** A pod presence watches: Running, with an agent. */
export const isWatched = (pod: WatchedPod) => pod.phase === "Running" && Boolean(pod.agentUrl);

/** The pods presence watches, with only what it reads of them (what crosses to the presence thread). */
export const watchedPods = (pods: readonly WatchedPod[]): WatchedPod[] =>
  pods.filter(isWatched).map(({ namespace, name, phase, agentUrl, createdAt, credential }) => ({
    namespace,
    name,
    phase,
    agentUrl,
    createdAt,
    ...(credential ? { credential } : {}),
  }));

/** What pushed() answers for an entry, before it is read. */
const viewOf = (entry: Entry): WireView | null => {
  if (entry.mode !== "pushing" || entry.text === null) return null;
  if (entry.silentAt !== null)
    return { kind: "silent", lastHeardAt: entry.lastHeardAt, detectedAt: entry.silentAt };
  return { kind: "status", text: entry.text };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A pushed line, read only as far as urgency and settling need: JSON with a string `status` and, if any,
 * an array of rank objects. The agent sends the state lower-case; an upper-case one is accepted too (as
 * agent-client.ts does), and the text passed on is the lower-cased one. The rest is validated where the
 * status is read (readView): on the operator's thread, not the presence thread, and only if read.
 */
function skimStatus(text: string): { text: string; status: WatchedStatus } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.status !== "string") return null;
  if (value.ranks !== undefined && !(Array.isArray(value.ranks) && value.ranks.every(isRecord))) return null;
  const state = value.status.toLowerCase();
  if (state === value.status) return { text, status: value as WatchedStatus };
  const lowered = { ...value, status: state };
  return { text: JSON.stringify(lowered), status: lowered as WatchedStatus };
}

export function createPresence(deps: {
  config?: Partial<PresenceConfig>;
  clock?: () => number;
  log: Logger;
  metrics: PresenceCounters;
  dial?: Dial;
  /** Start the sweep timer (default true; unit tests drive onTimer/judge themselves). */
  timer?: boolean;
  /** Told each time what pushed() answers for an agent may have changed (thread.ts mirrors it). */
  onView?: (change: ViewChange) => void;
}): PresenceCore {
  const config = { ...DEFAULT_PRESENCE_CONFIG, ...deps.config };
  const clock = deps.clock ?? Date.now;
  const dial = deps.dial ?? openWatch;
  const entries = new Map<string, Entry>();
  const byJob = new Map<string, Set<string>>();
  const listeners = new Set<WakeListener>();
  const progressWokenAt = new Map<string, number>();
  const counts = { lines: 0, heartbeats: 0, lateTicks: 0, correlated: 0, notedAt: 0 };
  let sweep: NodeJS.Timeout | undefined;
  let expectedAt = 0;
  /** The shared stall: whether the last judgement saw one, and when the last one cleared (null: in one). */
  const stall = { on: false, clearedAt: null as number | null };
  const emit = (entry: Entry) => {
    entry.holder = { view: viewOf(entry) };
    deps.onView?.({
      key: entry.key,
      jobKey: entry.jobKey,
      identity: entry.identity,
      mode: entry.mode,
      view: entry.holder.view,
    });
  };

  const wake = (jobKey: string, urgent: boolean) => {
    const now = clock();
    if (!urgent && now - (progressWokenAt.get(jobKey) ?? 0) < PROGRESS_WAKE_MS) return;
    // Any reconcile reads the progress too: the next progress wake is a second after this one.
    progressWokenAt.set(jobKey, now);
    for (const listener of listeners) listener(jobKey, urgent);
  };

  const heard = (entry: Entry) => {
    entry.lastHeardAt = clock();
    entry.excused = false;
    if (entry.silentAt === null) return;
    deps.log.info("agent heard again", {
      namespace: entry.namespace,
      pod: entry.pod,
      silentAt: entry.silentAt,
    });
    entry.silentAt = null;
    emit(entry);
    wake(entry.jobKey, true);
  };

  const onLine = (entry: Entry, text: string) => {
    counts.lines += 1;
    const skimmed = skimStatus(text);
    heard(entry);
    if (skimmed === null) {
      deps.log.warn("agent pushed an unreadable status line", { namespace: entry.namespace, pod: entry.pod });
      return;
    }
    // What the agent sends at once (a state, a rank's crash, restart or first step) reconciles at once too:
    // a restarted rank's first step is where goodput reads the step training resumed from (progress.ts).
    const { status } = skimmed;
    const keys = { urgent: urgentKey(status), start: startKey(status) };
    const changed = entry.keys?.urgent !== keys.urgent;
    if (startedWorkers(entry.keys?.start ?? null, status, keys.start))
      entry.settlingUntil = clock() + config.settleMs;
    entry.keys = keys;
    entry.text = skimmed.text;
    entry.mode = "pushing";
    emit(entry);
    wake(entry.jobKey, changed);
  };

  const connect = (entry: Entry) => {
    entry.retry = undefined;
    if (entry.closed) return;
    let established = false;
    entry.handle = dial({
      url: entry.url,
      credential: entry.credential,
      heartbeatMs: config.heartbeatMs,
      connectTimeoutMs: config.connectTimeoutMs,
      events: {
        opened: () => {
          established = true;
          entry.retryMs = FIRST_RETRY_MS;
          heard(entry);
        },
        line: (text) => onLine(entry, text),
        heartbeat: () => {
          counts.heartbeats += 1;
          heard(entry);
        },
        refused: () => {
          entry.handle = null;
          entry.mode = "polled";
          emit(entry);
        },
        closed: () => {
          entry.handle = null;
          if (entry.closed) return;
          // A stream the agent's side ended (its process exited, its pod is being deleted) is no silence:
          // until a watch is open again the agent is polled, as before (refused: unreachable after 3 s).
          if (established) {
            entry.mode = "probing";
            entry.silentAt = null;
            emit(entry);
          }
          entry.retry = setTimeout(() => connect(entry), entry.retryMs);
          entry.retryMs = Math.min(MAX_RETRY_MS, entry.retryMs * 2);
        },
      },
    });
  };

  const close = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entry.closed = true;
    clearTimeout(entry.retry);
    entry.handle?.close();
    entries.delete(key);
    byJob.get(entry.jobKey)?.delete(key);
    deps.onView?.({ key, removed: true });
  };

  const track = (jobKey: string, pod: WatchedPod) => {
    const key = podKey(pod);
    const identity = identityOf(pod);
    const existing = entries.get(key);
    if (existing?.identity === identity) return key;
    if (existing) close(key);
    const entry: Entry = {
      key,
      namespace: pod.namespace,
      pod: pod.name,
      jobKey,
      identity,
      url: pod.agentUrl ?? "",
      credential: pod.credential ?? null,
      mode: "probing",
      text: null,
      keys: null,
      holder: { view: null },
      lastHeardAt: clock(),
      settlingUntil: clock() + config.settleMs,
      silentAt: null,
      excused: false,
      handle: null,
      retryMs: FIRST_RETRY_MS,
      retry: undefined,
      closed: false,
    };
    entries.set(key, entry);
    emit(entry);
    connect(entry);
    return key;
  };

  /** Pushing agents unheard at `at`; with how many pushing agents there are and how many are silent. */
  /** Pushing agents unheard past the threshold at `at`, and how many are overdue (two heartbeats). */
  const unheard = (at: number) => {
    const waiting = [...entries.values()].filter(
      (entry) => entry.mode === "pushing" && entry.silentAt === null,
    );
    const overdue = waiting.filter((entry) => at - entry.lastHeardAt > 2 * config.heartbeatMs);
    const found = overdue.filter((entry) => at - entry.lastHeardAt > thresholdOf(entry, at));
    const longGone = found.filter((entry) => at - entry.lastHeardAt > config.unreachableMs);
    return { found, longGone, overdue, pushing: waiting.length };
  };

  /**
   * How long an agent may be unheard at `at`: the silence threshold; the unreachable timeout while it
   * settles; and, overdue with many (a shared stall), the unreachable timeout until the stall clears, then
   * the silence threshold counted from then (its stragglers get that long to be heard).
   */
  const thresholdOf = (entry: Entry, at: number) => {
    if (at < entry.settlingUntil) return config.unreachableMs;
    if (!entry.excused) return config.silenceMs;
    if (stall.clearedAt === null) return config.unreachableMs;
    const fromClear = stall.clearedAt + config.silenceMs - entry.lastHeardAt;
    return Math.min(config.unreachableMs, Math.max(config.silenceMs, fromClear));
  };

  const markSilent = (entry: Entry, detectedAt: number) => {
    entry.silentAt = detectedAt;
    emit(entry);
    deps.metrics.agentSilences.inc();
    deps.log.warn("agent silent", {
      namespace: entry.namespace,
      pod: entry.pod,
      lastHeardAt: entry.lastHeardAt,
      detectedAt,
      // Why it was not found at the silence threshold, if it was not: overdue in a shared stall, or still
      // settling when that threshold passed (its settling may have ended since).
      lenient: entry.excused
        ? "overdue with many"
        : entry.lastHeardAt + config.silenceMs < entry.settlingUntil
          ? "settling"
          : null,
    });
    wake(entry.jobKey, true);
  };

  /** Logs a skipped judgement at most once per NOTE_EVERY_MS, with the counts so far. */
  const note = (why: "late" | "correlated", fields: Record<string, unknown> = {}) => {
    counts[why === "late" ? "lateTicks" : "correlated"] += 1;
    const now = clock();
    if (now - counts.notedAt < NOTE_EVERY_MS) return;
    counts.notedAt = now;
    const msg =
      why === "late"
        ? "silence not judged: the operator's loop ran late"
        : "silence not judged: many agents overdue at once (a shared cause is suspected)";
    deps.log.warn(msg, { lateTicks: counts.lateTicks, correlated: counts.correlated, ...fields });
  };

  /**
   * Judges silence as of `at` (the sweep tick's time; what was read since can only clear an agent). A
   * silent agent is an isolated event; when many are overdue at once (CORRELATED_*), the likelier cause is
   * shared (this operator stalled, its network, a host running many agents), as Kubernetes' node lifecycle
   * controller assumes when a whole zone goes unready: only agents unheard past the unreachable timeout
   * (3 s, a polled agent's) are judged, so a real mass outage is found as polling would have found it.
   */
  const judge = (at: number, now = at) => {
    deps.metrics.agentPushLines.inc(counts.lines);
    deps.metrics.agentHeartbeats.inc(counts.heartbeats);
    counts.lines = 0;
    counts.heartbeats = 0;
    const { found, longGone, overdue, pushing } = unheard(at);
    const correlated = overdue.length > Math.max(CORRELATED_MIN, CORRELATED_FRACTION * pushing);
    stallSeen(correlated, at);
    if (correlated) excuse(overdue, found.length, pushing);
    for (const entry of correlated ? longGone : found) markSilent(entry, now);
  };

  /** Whether a shared stall is on at `at`; when one ends, its end is when the stragglers' time counts from. */
  const stallSeen = (on: boolean, at: number) => {
    if (on !== stall.on) stall.clearedAt = on ? null : at;
    stall.on = on;
  };

  /** Many overdue at once: each is judged leniently until heard again (Entry.excused, thresholdOf). */
  const excuse = (overdue: Entry[], unheardCount: number, pushing: number) => {
    for (const entry of overdue) entry.excused = true;
    if (unheardCount > 0) note("correlated", { unheard: unheardCount, overdue: overdue.length, pushing });
  };

  const onTimer = (firedAt: number, expected: number) => {
    if (firedAt - expected > config.silenceMs / 4) return note("late");
    setImmediate(() => {
      const now = clock();
      // The poll phase between the tick and here ran long: sockets that became ready meanwhile are unread.
      if (now - firedAt > config.silenceMs / 4) return note("late");
      judge(firedAt, now);
    });
  };

  if (deps.timer !== false) {
    expectedAt = clock() + config.sweepMs;
    sweep = setInterval(() => {
      const firedAt = clock();
      onTimer(firedAt, expectedAt);
      expectedAt = firedAt + config.sweepMs;
    }, config.sweepMs);
    sweep.unref();
  }

  const sync = (jobKey: string, pods: readonly WatchedPod[]) => {
    const keep = new Set(watchedPods(pods).map((pod) => track(jobKey, pod)));
    const before = [...(byJob.get(jobKey) ?? [])];
    byJob.set(jobKey, keep);
    for (const key of before.filter((key) => !keep.has(key))) close(key);
  };

  const holder = (pod: WatchedPod): ViewHolder | null => {
    const entry = entries.get(podKey(pod));
    return entry?.identity === identityOf(pod) ? entry.holder : null;
  };

  return {
    sync,
    holder,
    forgetJob(jobKey) {
      for (const key of [...(byJob.get(jobKey) ?? [])]) close(key);
      byJob.delete(jobKey);
      progressWokenAt.delete(jobKey);
    },
    onWake(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onTimer,
    judge,
    stats() {
      const stats = {
        pushing: 0,
        polled: 0,
        probing: 0,
        silent: 0,
        lateTicks: counts.lateTicks,
        correlated: counts.correlated,
      };
      for (const entry of entries.values()) {
        stats[entry.mode] += 1;
        if (entry.silentAt !== null) stats.silent += 1;
      }
      return stats;
    },
    stop() {
      clearInterval(sweep);
      for (const key of [...entries.keys()]) close(key);
      byJob.clear();
      listeners.clear();
    },
  };
}
