import { describe, expect, it } from "vitest";
import { capturingLogger } from "@/test/capturing-log";
import type { FromShadowEngine } from "./engine";
import { createShadowThread } from "./thread";

describe("the shadow thread, when it cannot start", () => {
  it("says so once, and answers each pass as skipped so the watcher goes on", async () => {
    const { log, logs } = capturingLogger();
    let starts = 0;
    const thread = createShadowThread({
      log,
      start: () => {
        starts += 1;
        return Promise.reject(new Error("esbuild is missing"));
      },
    });
    const out: FromShadowEngine[] = [];
    thread.onMessage((message) => out.push(message));
    thread.send({ type: "tick", pass: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    thread.send({ type: "tick", pass: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(out).toEqual([
      { type: "ticked", pass: 1, busy: [] },
      { type: "ticked", pass: 2, busy: [] },
    ]);
    // Tried again only after a pause, not at every message.
    expect(starts).toBe(1);
    expect(logs).toEqual([
      {
        msg: "shadow thread could not start: shadow rules are not judged",
        fields: { error: "Error: esbuild is missing" },
      },
    ]);
    thread.stop();
  });
});
