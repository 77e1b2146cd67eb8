import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createControlPoller, parseDemoFault } from "./faults";
import { parseTrainerArgs } from "./trainer-options";

describe("parseDemoFault", () => {
  it("reads kinds and conditions", () => {
    expect(parseDemoFault("crash@step=20:rank=3, slow@rank=1:restart=any,nan")).toEqual([
      { kind: "crash", step: 20, rank: 3, restart: 0 },
      { kind: "slow", step: 0, rank: 1, restart: null },
      { kind: "nan", step: 0, rank: null, restart: 0 },
    ]);
  });

  it("refuses what it does not know", () => {
    expect(() => parseDemoFault("explode")).toThrow('DEMO_FAULT: unknown kind "explode"');
    expect(() => parseDemoFault("hang@when=3")).toThrow('unknown condition "when"');
    expect(() => parseDemoFault("hang@step=x")).toThrow('bad condition "step=x"');
  });
});

describe("parseTrainerArgs", () => {
  it("reads both flag forms and the environment defaults", () => {
    expect(
      parseTrainerArgs(["--steps", "5", "--step-ms=20", "--startup-ms", "1500"], {
        REBOUND_FAULT_FILE: "/f",
      }),
    ).toEqual({
      steps: 5,
      stepMs: 20,
      startupMs: 1500,
      checkpointDir: "/tmp/rebound-demo-ckpt",
      checkpointEvery: 10,
      controlFile: "/f",
      dumpEnvDir: null,
      peerRecovery: false,
    });
    expect(parseTrainerArgs(["--peer-recovery", "--steps", "1"], {})).toMatchObject({
      peerRecovery: true,
      steps: 1,
    });
    expect(() => parseTrainerArgs(["--steps=-1"], {})).toThrow("--steps: expected an integer >= 0");
    expect(() => parseTrainerArgs(["--what"], {})).toThrow('unknown argument "--what"');
  });
});

describe("createControlPoller", () => {
  it("applies each id once, to the named rank, and ignores commands older than the process", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "demo-control-"));
    const file = path.join(dir, "control.json");
    try {
      const poll = createControlPoller({ file, rank: 3, startedAt: 0 });
      expect(poll()).toBeNull();
      await writeFile(file, JSON.stringify({ kind: "crash", rank: 3, id: "a" }));
      expect(poll()).toEqual({ kind: "crash", rank: 3, id: "a" });
      await writeFile(file, JSON.stringify({ kind: "crash", rank: 3, id: "a", note: "rewritten" }));
      expect(poll()).toBeNull();
      await writeFile(file, JSON.stringify({ kind: "hang", rank: 1, id: "b" }));
      expect(poll()).toBeNull();
      await writeFile(file, JSON.stringify({ kind: "none", rank: null, id: "c" }));
      expect(poll()).toEqual({ kind: "none", rank: null, id: "c" });
      const late = createControlPoller({ file, rank: 3, startedAt: Date.now() + 60_000 });
      expect(late()).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
