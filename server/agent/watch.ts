import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Rebound's push wire, agent side (server/operator/presence/README.md): `GET /rebound/v1/watch?heartbeat_ms=N`
 * answers 200 `application/x-ndjson`; the first line is the /status body, then a /status line on every state
 * change (at once; a rank's crash, restart or first step too) and on other changes (rank progress) coalesced
 * to one line a second; between lines a bare "\n" every heartbeat_ms. Many watchers may be open; a closed one
 * is forgotten.
 *
 * One timer serves every stream of the process (the stand-in agents keep 2,048 pods' streams in one process):
 * each tick writes a heartbeat to the streams due one. Imports stay relative (the agent runs under plain tsx).
 */

export const WATCH_PATH = "/rebound/v1/watch";
export const DEFAULT_HEARTBEAT_MS = 250;
const MIN_HEARTBEAT_MS = 20;
const MAX_HEARTBEAT_MS = 60_000;
/** Changes that are not a state transition (rank progress) go out at most this often per agent. */
export const COALESCE_MS = 1000;
/** A watcher that reads nothing while this much waits in its socket is dropped (it reconnects). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** heartbeat_ms from the query, bounded; absent or not a number: the default. */
export function heartbeatMsOf(url: string | undefined): number {
  const raw = new URL(url ?? "/", "http://agent").searchParams.get("heartbeat_ms");
  const value = raw === null ? Number.NaN : Number(raw);
  if (!Number.isFinite(value)) return DEFAULT_HEARTBEAT_MS;
  return Math.min(MAX_HEARTBEAT_MS, Math.max(MIN_HEARTBEAT_MS, Math.round(value)));
}

export function isWatchRequest(request: IncomingMessage): boolean {
  return request.method === "GET" && new URL(request.url ?? "/", "http://agent").pathname === WATCH_PATH;
}

export type WatchStream = {
  /** Writes one /status line (the JSON text, without its newline). */
  send(json: string): void;
  closed(): boolean;
};

type Entry = {
  response: ServerResponse;
  heartbeatMs: number;
  lastWriteAt: number;
  muted: () => boolean;
  closed: boolean;
};

export type Heartbeats = {
  /** Opens the stream on `response` (200, ndjson) and writes `first` as its first line. */
  open(input: {
    request: IncomingMessage;
    response: ServerResponse;
    first: string;
    muted?: () => boolean;
  }): WatchStream;
  count(): number;
  stop(): void;
};

/** One shared heartbeat timer for every open stream; it runs only while a stream is open. */
export function createHeartbeats(opts: { tickMs?: number; clock?: () => number } = {}): Heartbeats {
  const clock = opts.clock ?? Date.now;
  const tickMs = opts.tickMs ?? 25;
  const entries = new Set<Entry>();
  let timer: NodeJS.Timeout | undefined;

  const write = (entry: Entry, text: string) => {
    if (entry.closed) return;
    if (entry.response.writableLength > MAX_BUFFERED_BYTES) {
      entry.response.destroy();
      return;
    }
    entry.response.write(text);
    entry.lastWriteAt = clock();
  };
  const tick = () => {
    const now = clock();
    for (const entry of entries)
      if (!entry.muted() && now - entry.lastWriteAt >= entry.heartbeatMs) write(entry, "\n");
  };
  const forget = (entry: Entry) => {
    entry.closed = true;
    entries.delete(entry);
    if (entries.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    open({ request, response, first, muted }) {
      const entry: Entry = {
        response,
        heartbeatMs: heartbeatMsOf(request.url),
        lastWriteAt: 0,
        muted: muted ?? (() => false),
        closed: false,
      };
      response.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
      response.on("close", () => forget(entry));
      request.socket.setNoDelay(true);
      entries.add(entry);
      timer ??= setInterval(tick, tickMs);
      timer.unref();
      write(entry, `${first}\n`);
      return {
        send: (json) => write(entry, `${json}\n`),
        closed: () => entry.closed,
      };
    },
    count: () => entries.size,
    stop() {
      for (const entry of [...entries]) {
        entry.response.destroy();
        forget(entry);
      }
    },
  };
}

/**
 * What decides when a line goes out: a change of `key` (the state, or urgentKey's) at once; any other change
 * of the body at most once per COALESCE_MS. `next` is called with the current key and a way to build the body
 * (built only when needed).
 */
export function createLineGate(clock: () => number = Date.now) {
  let lastKey: string | null = null;
  let lastJson: string | null = null;
  let lastBuiltAt = 0;
  return {
    /** The line to send now, or null. */
    next(key: string, json: () => string): string | null {
      const now = clock();
      if (key === lastKey && now - lastBuiltAt < COALESCE_MS) return null;
      const body = json();
      lastBuiltAt = now;
      if (key === lastKey && body === lastJson) return null;
      lastKey = key;
      lastJson = body;
      return body;
    },
    /** A first line sent to a new stream: remembered when nothing was sent before (else others lack it). */
    seen(key: string, body: string) {
      if (lastKey !== null) return;
      lastKey = key;
      lastJson = body;
      lastBuiltAt = clock();
    },
  };
}

export type WatchedStatus = {
  status: string;
  ranks?: ReadonlyArray<{ state: string; step: number | null; restarts: number }>;
};

/**
 * What goes out at once rather than coalesced: the agent's state and, per rank, its run state, its restarts
 * and whether it has printed a step yet. A restarted rank's first step is where the operator reads the step
 * training resumed from (server/operator/reconcilers/progress.ts): a second late, it would read a later one
 * and count a step lost that was not.
 */
export function urgentKey(status: WatchedStatus): string {
  if (!status.ranks) return status.status;
  const ranks = status.ranks.map((rank) => `${rank.state}:${rank.restarts}:${rank.step === null ? 0 : 1}`);
  return `${status.status}|${ranks.join(",")}`;
}

export type StatusWatch = {
  /** Serves one GET /rebound/v1/watch. */
  attach(request: IncomingMessage, response: ServerResponse): void;
  /** Looks for a change now (after a command), not at the next check. */
  poke(): void;
  stop(): void;
};

/**
 * The watch of one agent whose state lives elsewhere (server/agent/agent.ts has no change events): while a
 * stream is open, the status is looked at every `checkMs` (25 ms: a worker's crash is on the wire within
 * that) and after every command; the line gate decides what goes out.
 */
export function createStatusWatch(opts: {
  status: () => WatchedStatus;
  checkMs?: number;
  clock?: () => number;
}): StatusWatch {
  const clock = opts.clock ?? Date.now;
  const heartbeats = createHeartbeats({ clock });
  const gate = createLineGate(clock);
  const streams = new Set<WatchStream>();
  let timer: NodeJS.Timeout | undefined;

  const check = () => {
    if (streams.size === 0) return;
    const status = opts.status();
    const line = gate.next(urgentKey(status), () => JSON.stringify(status));
    if (line !== null) for (const stream of streams) stream.send(line);
  };
  const forget = (stream: WatchStream) => {
    streams.delete(stream);
    if (streams.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  };

  return {
    attach(request, response) {
      const status = opts.status();
      const first = JSON.stringify(status);
      gate.seen(urgentKey(status), first);
      const stream = heartbeats.open({ request, response, first });
      streams.add(stream);
      response.on("close", () => forget(stream));
      timer ??= setInterval(check, opts.checkMs ?? 25);
      timer.unref();
    },
    poke: check,
    stop() {
      clearInterval(timer);
      timer = undefined;
      streams.clear();
      heartbeats.stop();
    },
  };
}
