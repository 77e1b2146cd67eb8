import { describe, expect, it, vi } from "vitest";
import { createWorkQueue } from "./workqueue";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("workqueue", () => {
  it("never runs one key concurrently, and re-runs it once if it was added while running", async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const queue = createWorkQueue({
      workers: 4,
      handler: async (key) => {
        concurrent += 1;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        runs.push(key);
        if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
        concurrent -= 1;
        return undefined;
      },
    });
    queue.add("a");
    await tick();
    queue.add("a");
    queue.add("a");
    release();
    await vi.waitFor(() => expect(runs).toEqual(["a", "a"]));
    expect(maxConcurrent).toBe(1);
    await queue.shutdown();
  });

  it("deduplicates queued keys and runs different keys in parallel up to the worker count", async () => {
    const started: string[] = [];
    const gates: Array<() => void> = [];
    const queue = createWorkQueue({
      workers: 2,
      handler: (key) =>
        new Promise((resolve) => {
          started.push(key);
          gates.push(() => resolve(undefined));
        }),
    });
    for (const key of ["a", "b", "c", "c"]) queue.add(key);
    await tick();
    expect(started).toEqual(["a", "b"]);
    expect(queue.depth()).toBe(3);
    for (const open of gates.splice(0)) open();
    await vi.waitFor(() => expect(started).toEqual(["a", "b", "c"]));
    for (const open of gates.splice(0)) open();
    await queue.shutdown();
  });

  it("retries a failing key with growing backoff and reports each error", async () => {
    vi.useFakeTimers();
    const errors: string[] = [];
    let calls = 0;
    const queue = createWorkQueue({
      workers: 1,
      baseBackoffMs: 100,
      random: () => 0.5,
      onError: (key, error) => errors.push(`${key}: ${(error as Error).message}`),
      handler: async () => {
        calls += 1;
        if (calls < 3) throw new Error(`boom ${calls}`);
        return undefined;
      },
    });
    queue.add("job");
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    expect(errors).toEqual(["job: boom 1", "job: boom 2"]);
    await queue.shutdown();
    vi.useRealTimers();
  });

  it("requeues after the delay a handler asks for", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const queue = createWorkQueue({
      workers: 1,
      handler: async () => {
        calls += 1;
        return { requeueAfterMs: 250 };
      },
    });
    queue.add("job");
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(250);
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toBe(3);
    await queue.shutdown();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(3);
    vi.useRealTimers();
  });

  it("runs a key added with addFirst before the keys already waiting, once", async () => {
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const queue = createWorkQueue({
      workers: 1,
      handler: async (key) => {
        runs.push(key);
        if (key === "busy") await new Promise<void>((resolve) => (release = resolve));
        return undefined;
      },
    });
    queue.add("busy");
    await tick();
    for (const key of ["a", "b", "c"]) queue.add(key);
    queue.addFirst("c");
    queue.addFirst("urgent");
    release();
    await vi.waitFor(() => expect(runs).toEqual(["busy", "urgent", "c", "a", "b"]));
    await queue.shutdown();
  });
});
