import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BUSY_GAP_FACTOR,
  createLiveHub,
  type LiveHub,
  type LiveMessage,
  type LiveSource,
  MAX_QUEUED,
} from "./hub";

/**
 * The hub with fake timers: each test moves the clock by whole intervals and looks at what each viewer got
 * and how often the source was read.
 */
type Patch = { from: number; to: number };
type Message = LiveMessage<number, Patch>;

const INTERVAL = 1000;

/** A source whose value is whatever `state.value` holds when it is read; `state.fail` makes reads fail. */
function counterSource(key = "counter") {
  const state = { value: 1, loads: 0, fail: null as string | null };
  const source: LiveSource<number, Patch> = {
    key,
    intervalMs: INTERVAL,
    load: async () => {
      state.loads += 1;
      if (state.fail !== null) throw new Error(state.fail);
      return state.value;
    },
    diff: (from, to) => (from === to ? null : { from, to }),
  };
  return { state, source };
}

/** A viewer that reads every message as soon as it is sent. */
function watcher(hub: LiveHub, source: LiveSource<number, Patch>) {
  const controller = new AbortController();
  const messages: Message[] = [];
  const done = (async () => {
    for await (const message of hub.stream(source, controller.signal)) messages.push(message);
  })();
  return {
    messages,
    leave: async () => {
      controller.abort();
      await done;
    },
  };
}

const tickBy = (ms: number) => vi.advanceTimersByTimeAsync(ms);

let hub: LiveHub;
beforeEach(() => {
  vi.useFakeTimers();
  hub = createLiveHub();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("one loop per key", () => {
  it("reads once per interval however many viewers watch the key", async () => {
    const { state, source } = counterSource();
    const viewers = [watcher(hub, source), watcher(hub, source), watcher(hub, source)];
    await tickBy(0);
    expect(hub.stats()).toEqual({ loops: 1, viewers: 3 });
    expect(state.loads).toBe(1);
    await tickBy(INTERVAL * 5);
    expect(state.loads).toBe(6);
    // Another key is another loop.
    const other = watcher(hub, counterSource("other").source);
    await tickBy(0);
    expect(hub.stats()).toEqual({ loops: 2, viewers: 4 });
    for (const viewer of [...viewers, other]) await viewer.leave();
  });

  it("sends the value whole first, then one patch per change and nothing while nothing changes", async () => {
    const { state, source } = counterSource();
    const a = watcher(hub, source);
    const b = watcher(hub, source);
    await tickBy(0);
    await tickBy(INTERVAL); // unchanged: nothing sent
    state.value = 2;
    await tickBy(INTERVAL);
    await tickBy(INTERVAL); // unchanged again
    state.value = 5;
    await tickBy(INTERVAL);
    const expected: Message[] = [
      { kind: "snapshot", value: 1 },
      { kind: "patch", patch: { from: 1, to: 2 } },
      { kind: "patch", patch: { from: 2, to: 5 } },
    ];
    expect(a.messages).toEqual(expected);
    expect(b.messages).toEqual(expected);
    await a.leave();
    await b.leave();
  });

  it("computes each change's patch once for all viewers", async () => {
    const { state, source } = counterSource();
    const diff = vi.fn(source.diff);
    const counted = { ...source, diff };
    const viewers = [watcher(hub, counted), watcher(hub, counted), watcher(hub, counted)];
    await tickBy(0);
    state.value = 2;
    await tickBy(INTERVAL);
    expect(diff).toHaveBeenCalledTimes(1);
    expect(viewers.map((viewer) => viewer.messages.at(-1))).toEqual(
      Array(3).fill({ kind: "patch", patch: { from: 1, to: 2 } }),
    );
    for (const viewer of viewers) await viewer.leave();
  });

  it("gives a late viewer the current value whole, then the same patches as the others", async () => {
    const { state, source } = counterSource();
    const early = watcher(hub, source);
    await tickBy(0);
    state.value = 3;
    await tickBy(INTERVAL);
    const late = watcher(hub, source);
    await tickBy(0);
    expect(late.messages).toEqual([{ kind: "snapshot", value: 3 }]);
    expect(state.loads).toBe(2); // the late viewer did not cause a read of its own
    state.value = 4;
    await tickBy(INTERVAL);
    expect(late.messages.at(-1)).toEqual({ kind: "patch", patch: { from: 3, to: 4 } });
    expect(early.messages.at(-1)).toEqual({ kind: "patch", patch: { from: 3, to: 4 } });
    await early.leave();
    await late.leave();
  });

  it("stops the loop when the last viewer leaves, and starts afresh for the next", async () => {
    const { state, source } = counterSource();
    const a = watcher(hub, source);
    const b = watcher(hub, source);
    await tickBy(0);
    await a.leave();
    await tickBy(INTERVAL);
    expect(hub.stats()).toEqual({ loops: 1, viewers: 1 });
    await b.leave();
    expect(hub.stats()).toEqual({ loops: 0, viewers: 0 });
    const loads = state.loads;
    await tickBy(INTERVAL * 10);
    expect(state.loads).toBe(loads);
    const c = watcher(hub, source);
    await tickBy(0);
    expect(state.loads).toBe(loads + 1);
    expect(c.messages).toEqual([{ kind: "snapshot", value: 1 }]);
    await c.leave();
  });

  it("stops the loop when a viewer leaves while a read is in flight", async () => {
    let release: (value: number) => void = () => {};
    let loads = 0;
    const source: LiveSource<number, Patch> = {
      key: "slow-read",
      intervalMs: INTERVAL,
      load: () => {
        loads += 1;
        return new Promise<number>((resolve) => {
          release = resolve;
        });
      },
      diff: () => null,
    };
    const viewer = watcher(hub, source);
    await tickBy(0);
    await viewer.leave();
    release(1);
    await tickBy(INTERVAL * 5);
    expect(loads).toBe(1);
    expect(hub.stats()).toEqual({ loops: 0, viewers: 0 });
  });
});

describe("a slow read", () => {
  it("waits BUSY_GAP_FACTOR times a read's duration before the next, and the interval again once reads are quick", async () => {
    const { source } = counterSource();
    const reads: number[] = [];
    let readMs = 3_000;
    const slow: LiveSource<number, Patch> = {
      ...source,
      load: async () => {
        reads.push(Date.now());
        if (readMs > 0) await new Promise((resolve) => setTimeout(resolve, readMs));
        return source.load();
      },
    };
    const from = Date.now();
    const viewer = watcher(hub, slow);
    await tickBy(3_000);
    readMs = 0;
    await tickBy(BUSY_GAP_FACTOR * 3_000 + INTERVAL * 2);
    // First read at 0, 3 s long; the next BUSY_GAP_FACTOR × 3 s after it ended; then one interval apart.
    const gaps = reads.map((at) => at - from);
    expect(gaps).toEqual([
      0,
      3_000 + BUSY_GAP_FACTOR * 3_000,
      3_000 + BUSY_GAP_FACTOR * 3_000 + INTERVAL,
      3_000 + BUSY_GAP_FACTOR * 3_000 + 2 * INTERVAL,
    ]);
    await viewer.leave();
  });
});

describe("a source that fails", () => {
  it("says unavailable once per distinct reason, then sends the value whole when it recovers", async () => {
    const { state, source } = counterSource();
    const viewer = watcher(hub, source);
    await tickBy(0);
    state.fail = "operator unreachable";
    await tickBy(INTERVAL * 3);
    state.fail = "operator answered 500";
    await tickBy(INTERVAL);
    state.fail = null;
    state.value = 2;
    await tickBy(INTERVAL);
    expect(viewer.messages).toEqual([
      { kind: "snapshot", value: 1 },
      { kind: "unavailable", message: "operator unreachable" },
      { kind: "unavailable", message: "operator answered 500" },
      { kind: "snapshot", value: 2 },
    ]);
    await viewer.leave();
  });

  it("tells a viewer joining during an outage the last value and the outage", async () => {
    const { state, source } = counterSource();
    const first = watcher(hub, source);
    await tickBy(0);
    state.fail = "down";
    await tickBy(INTERVAL);
    const late = watcher(hub, source);
    await tickBy(0);
    expect(late.messages).toEqual([
      { kind: "snapshot", value: 1 },
      { kind: "unavailable", message: "down" },
    ]);
    await first.leave();
    await late.leave();
  });

  it("keeps going after a load that throws before returning a promise, and after a diff that throws", async () => {
    let mode: "ok" | "throw-load" | "throw-diff" = "ok";
    let value = 1;
    const source: LiveSource<number, Patch> = {
      key: "throwing",
      intervalMs: INTERVAL,
      load: () => {
        if (mode === "throw-load") throw new Error("load threw");
        return Promise.resolve(value);
      },
      diff: (from, to) => {
        if (mode === "throw-diff") throw new Error("diff threw");
        return from === to ? null : { from, to };
      },
    };
    const viewer = watcher(hub, source);
    await tickBy(0);
    mode = "throw-load";
    await tickBy(INTERVAL);
    mode = "ok";
    value = 2;
    await tickBy(INTERVAL);
    mode = "throw-diff";
    value = 3;
    await tickBy(INTERVAL);
    mode = "ok";
    await tickBy(INTERVAL);
    expect(viewer.messages).toEqual([
      { kind: "snapshot", value: 1 },
      { kind: "unavailable", message: "load threw" },
      { kind: "snapshot", value: 2 },
      { kind: "unavailable", message: "diff threw" },
      { kind: "snapshot", value: 3 },
    ]);
    await viewer.leave();
  });
});

/** What a viewer has waiting, read until it reaches `latest` (or more than MAX_QUEUED messages). */
async function drain(stream: AsyncGenerator<Message, void>, latest: number): Promise<Message[]> {
  const waiting: Message[] = [];
  const reached = (message: Message) =>
    (message.kind === "patch" && message.patch.to === latest) ||
    (message.kind === "snapshot" && message.value === latest);
  while (waiting.length <= MAX_QUEUED) {
    const pending = stream.next();
    await tickBy(0);
    const result = await pending;
    if (result.done) break;
    waiting.push(result.value);
    if (reached(result.value)) break;
  }
  return waiting;
}

/** The value a viewer holds after applying `messages` in order (each patch must start where it stands). */
function replay(messages: Message[]): number {
  let seen = Number.NaN;
  for (const message of messages) {
    if (message.kind === "snapshot") seen = message.value;
    if (message.kind === "patch") {
      expect(message.patch.from).toBe(seen);
      seen = message.patch.to;
    }
  }
  return seen;
}

describe("a slow viewer", () => {
  it("gets one fresh snapshot instead of a backlog, while the others get every patch", async () => {
    const { state, source } = counterSource();
    const fast = watcher(hub, source);
    const controller = new AbortController();
    const slow = hub.stream(source, controller.signal);
    const first = slow.next();
    await tickBy(0);
    expect((await first).value).toEqual({ kind: "snapshot", value: 1 });
    const changes = MAX_QUEUED * 3;
    for (let change = 0; change < changes; change += 1) {
      state.value += 1;
      await tickBy(INTERVAL);
    }
    expect(fast.messages).toHaveLength(1 + changes);
    // Whatever piled up beyond MAX_QUEUED was dropped for the latest value whole.
    const waiting = await drain(slow, state.value);
    expect(waiting.length).toBeLessThanOrEqual(MAX_QUEUED);
    expect(waiting.filter((message) => message.kind === "snapshot")).toEqual([
      { kind: "snapshot", value: expect.any(Number) },
    ]);
    // Replaying what it got lands on the current value.
    expect(replay(waiting)).toBe(state.value);
    controller.abort();
    await slow.return(undefined);
    await fast.leave();
  });

  it("still hears of an outage that happens while it is behind", async () => {
    const { state, source } = counterSource();
    const controller = new AbortController();
    const slow = hub.stream(source, controller.signal);
    const first = slow.next();
    await tickBy(0);
    await first;
    for (let change = 0; change < MAX_QUEUED; change += 1) {
      state.value += 1;
      await tickBy(INTERVAL);
    }
    state.fail = "down";
    await tickBy(INTERVAL);
    const got: Message[] = [];
    for (let index = 0; index < 2; index += 1) {
      const pending = slow.next();
      await tickBy(0);
      const result = await pending;
      if (!result.done) got.push(result.value);
    }
    expect(got).toEqual([
      { kind: "snapshot", value: state.value },
      { kind: "unavailable", message: "down" },
    ]);
    controller.abort();
    await slow.return(undefined);
  });
});

describe("cached", () => {
  it("shares one read between concurrent and recent callers, and reads again after the ttl", async () => {
    let reads = 0;
    const load = async () => {
      reads += 1;
      return reads;
    };
    const [a, b] = await Promise.all([hub.cached("rows", 500, load), hub.cached("rows", 500, load)]);
    expect([a, b, reads]).toEqual([1, 1, 1]);
    await tickBy(400);
    expect(await hub.cached("rows", 500, load)).toBe(1);
    await tickBy(200);
    expect(await hub.cached("rows", 500, load)).toBe(2);
    expect(await hub.cached("other", 500, load)).toBe(3);
  });

  it("shares a read in flight however long it takes, and does not keep a failed one", async () => {
    let reads = 0;
    let release: () => void = () => {};
    const slow = () => {
      reads += 1;
      return new Promise<number>((resolve) => {
        release = () => resolve(reads);
      });
    };
    const first = hub.cached("slow", 100, slow);
    await tickBy(1000);
    const second = hub.cached("slow", 100, slow);
    release();
    expect([await first, await second, reads]).toEqual([1, 1, 1]);

    let attempts = 0;
    const flaky = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("database restarting");
      return attempts;
    };
    await expect(hub.cached("flaky", 10_000, flaky)).rejects.toThrow("database restarting");
    expect(await hub.cached("flaky", 10_000, flaky)).toBe(2);
  });
});

describe("refresh", () => {
  it("loads every loop now instead of at its next interval, and drops shared reads", async () => {
    const { state, source } = counterSource();
    const viewer = watcher(hub, source);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return reads;
    };
    await tickBy(0);
    expect(await hub.cached("rows", 10_000, read)).toBe(1);
    state.value = 2;
    hub.refresh();
    await tickBy(0);
    expect(viewer.messages.at(-1)).toEqual({ kind: "patch", patch: { from: 1, to: 2 } });
    expect(state.loads).toBe(2);
    expect(await hub.cached("rows", 10_000, read)).toBe(2);
    // The loop goes back to its interval afterwards.
    await tickBy(INTERVAL - 1);
    expect(state.loads).toBe(2);
    await tickBy(1);
    expect(state.loads).toBe(3);
    await viewer.leave();
  });

  it("loads again as soon as a load that was under way ends, so the change is not missed", async () => {
    let release: () => void = () => {};
    let loads = 0;
    let value = 1;
    const source: LiveSource<number, Patch> = {
      key: "slow",
      intervalMs: INTERVAL,
      load: () => {
        loads += 1;
        const seen = value;
        return new Promise<number>((resolve) => {
          release = () => resolve(seen);
        });
      },
      diff: (from, to) => (from === to ? null : { from, to }),
    };
    const viewer = watcher(hub, source);
    await tickBy(0);
    value = 2; // changed after the load in flight read its value
    hub.refresh();
    release();
    await tickBy(0);
    expect(loads).toBe(2);
    release();
    await tickBy(0);
    expect(viewer.messages).toEqual([
      { kind: "snapshot", value: 1 },
      { kind: "patch", patch: { from: 1, to: 2 } },
    ]);
    await viewer.leave();
  });
});
