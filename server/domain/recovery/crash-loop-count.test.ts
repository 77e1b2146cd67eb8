import { describe, expect, it } from "vitest";
import { onFailure } from "./crash-loop";

/**
 * Issue 36 item 6: with the crash-loop handling off ("0", HyperPod's endless retries) a failure still counts
 * the restarts in a row without progress (no back-off, no bound): that count is what folds a crash loop's
 * repeats into one restart record (server/operator/reconcilers/recovery.ts `repeat`).
 */
describe("the crash-loop count with the handling off", () => {
  it("goes on counting restarts in a row without progress, restarting at once, never failing", () => {
    let state = { restartsWithoutProgress: 0 };
    const counts: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      const decision = onFailure({ state, progressed: false, limit: 0, cause: "exit code 3" });
      expect(decision).toMatchObject({ action: "restart", delayMs: 0 });
      state = decision.state;
      counts.push(state.restartsWithoutProgress);
    }
    expect(counts.slice(0, 3)).toEqual([1, 2, 3]);
    expect(counts.at(-1)).toBe(50);
  });

  it("starts again at 1 after progress", () => {
    const decision = onFailure({
      state: { restartsWithoutProgress: 9 },
      progressed: true,
      limit: 0,
      cause: "x",
    });
    expect(decision).toEqual({ action: "restart", delayMs: 0, state: { restartsWithoutProgress: 1 } });
  });
});
