import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeExit, lastLines } from "./pod-exit";

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe("an agent's exit (AgentExited)", () => {
  it("carries only the current attempt's lines of a log every attempt appends to", () => {
    dir = mkdtempSync(path.join(tmpdir(), "pod-exit-"));
    const log = path.join(dir, "agent.log");
    writeFileSync(log, "attempt 1: error: unknown flag --x\n");
    const from = statSync(log).size;
    appendFileSync(log, "attempt 2: error: cannot bind\n");
    const tail = lastLines(log, { from });
    expect(tail).toBe("attempt 2: error: cannot bind");
    const message = describeExit({ namespace: "ns", job: "j", pod: "j-w-0", code: 2, signal: null, tail });
    expect(message).not.toContain("attempt 1");
    // Nothing written by this attempt: no lines (not the previous attempt's).
    expect(lastLines(log, { from: statSync(log).size })).toBe("");
  });
});
