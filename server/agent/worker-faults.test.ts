import { describe, expect, it } from "vitest";
import type { ProcessExit } from "./managed-process";
import { hookFault, workerCrashFault } from "./worker-faults";

const exit = (patch: Partial<ProcessExit>): ProcessExit => ({
  code: 1,
  signal: null,
  at: 1_700_000_000_000,
  spawnError: null,
  lastStderrLine: null,
  ...patch,
});

describe("workerCrashFault", () => {
  it("uses the agent's message with the worker's last stderr line", () => {
    expect(
      workerCrashFault({ localRank: 2, pid: 77, exit: exit({ lastStderrLine: "RuntimeError: boom  " }) }),
    ).toEqual({
      reason: "WorkerCrash",
      message:
        "A training worker process has crashed:\n    Local Rank 2 exited with code 1 due to: RuntimeError: boom",
      at: 1_700_000_000_000,
    });
  });

  it("reports a signal death as torchelastic does", () => {
    const fault = workerCrashFault({
      localRank: 0,
      pid: 1234,
      exit: exit({ code: null, signal: "SIGKILL" }),
    });
    expect(fault.message).toBe(
      "A training worker process has crashed:\n    Local Rank 0 exited with code -9 due to: Signal 9 (SIGKILL) received by PID 1234",
    );
  });

  it("falls back to torchelastic's pointer, and names a spawn error", () => {
    expect(workerCrashFault({ localRank: 1, pid: 5, exit: exit({ code: 3 }) }).message).toContain(
      "exited with code 3 due to: To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    );
    const spawnFailed = exit({ code: 127, spawnError: "spawn python3 ENOENT" });
    expect(workerCrashFault({ localRank: 1, pid: null, exit: spawnFailed }).message).toContain(
      "exited with code 127 due to: spawn python3 ENOENT",
    );
  });
});

describe("hookFault", () => {
  it("names the script", () => {
    expect(
      hookFault({ phase: "pre_train", script: "/w/setup.sh", pid: 9, exit: exit({ code: 4 }) }),
    ).toMatchObject({
      reason: "WorkerFault",
      message: expect.stringMatching(/^The pre-train script \/w\/setup.sh exited with code 4 due to: /),
    });
  });
});
