import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Recheck, rechecked } from "./rechecked";

/**
 * A viewer's stream with its access asked again on a timer (fake timers): kept, reopened on a new scope,
 * or ended with the recheck's error, even while the stream has nothing to send.
 */
const EVERY = 2000;

/** A stream that sends `${scope}:${n}` every second until its signal aborts; `opened` lists the scopes. */
function ticking(scope: () => string) {
  const opened: string[] = [];
  const open = async function* (signal: AbortSignal) {
    const name = scope();
    opened.push(name);
    let n = 0;
    while (!signal.aborted) {
      yield `${name}:${n}`;
      n += 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { open, opened };
}

/** Reads the stream in the background: its messages, and how it ended. */
function read(stream: AsyncGenerator<string, void>) {
  const got: string[] = [];
  const ended = { how: "open" as string };
  void (async () => {
    try {
      for await (const message of stream) got.push(message);
      ended.how = "done";
    } catch (error) {
      ended.how = error instanceof Error ? error.message : String(error);
    }
  })();
  return { got, ended };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a rechecked stream", () => {
  it("goes on while the recheck says keep, asking every interval", async () => {
    const recheck = vi.fn<Recheck>(async () => "keep");
    const source = ticking(() => "a");
    const controller = new AbortController();
    const { got, ended } = read(
      rechecked({ signal: controller.signal, everyMs: EVERY, open: source.open, recheck }),
    );
    await vi.advanceTimersByTimeAsync(EVERY * 3 + 10);
    expect(recheck).toHaveBeenCalledTimes(3);
    expect(got).toEqual(["a:0", "a:1", "a:2", "a:3", "a:4", "a:5", "a:6"]);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(ended.how).toBe("done");
    await vi.advanceTimersByTimeAsync(EVERY * 3);
    expect(recheck).toHaveBeenCalledTimes(3);
  });

  it("opens the stream again on the new scope when the recheck says reopen", async () => {
    let scope = "team-a";
    const source = ticking(() => scope);
    const recheck: Recheck = async () => {
      if (scope === "team-a") {
        scope = "team-a,team-b";
        return "reopen";
      }
      return "keep";
    };
    const controller = new AbortController();
    const { got } = read(
      rechecked({ signal: controller.signal, everyMs: EVERY, open: source.open, recheck }),
    );
    await vi.advanceTimersByTimeAsync(EVERY + 10);
    expect(source.opened).toEqual(["team-a", "team-a,team-b"]);
    expect(got.at(-1)).toBe("team-a,team-b:0");
    controller.abort();
  });

  it("ends with the recheck's error, even when the stream has nothing to send", async () => {
    const silent = async function* (signal: AbortSignal) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      yield* [];
    };
    let revoked = false;
    const recheck: Recheck = async () => {
      if (revoked) throw new Error("the session ended");
      return "keep";
    };
    const { got, ended } = read(rechecked({ signal: undefined, everyMs: EVERY, open: silent, recheck }));
    await vi.advanceTimersByTimeAsync(EVERY * 2);
    expect(ended.how).toBe("open");
    revoked = true;
    await vi.advanceTimersByTimeAsync(EVERY);
    expect(ended.how).toBe("the session ended");
    expect(got).toEqual([]);
  });
});
