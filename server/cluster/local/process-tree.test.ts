import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { descendants, isAlive, killTree, parentFromStat } from "./process-tree";

describe("parentFromStat", () => {
  it("reads the parent pid after the command name, whatever the name holds", () => {
    expect(parentFromStat("4242 (node) S 17 4242 4242 0 -1 4194560 1203 0 0 0")).toBe(17);
    expect(parentFromStat("4242 (a) b (c) R 1 4242 4242 0 -1")).toBe(1);
    expect(parentFromStat("4242 (odd ) S 99) Z 3 0")).toBe(3);
  });

  it("gives null for a line it cannot read", () => {
    expect(parentFromStat("")).toBeNull();
    expect(parentFromStat("4242 (node) S")).toBeNull();
  });
});

describe.runIf(process.platform === "linux")("descendants and killTree", () => {
  it("find and kill every process below a root, several roots in one turn of the event loop", async () => {
    const script =
      "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000)";
    const roots = [0, 1].map(() => spawn(process.execPath, ["-e", script], { stdio: "ignore" }));
    const pids = roots.map((root) => root.pid as number);
    const deadline = Date.now() + 10_000;
    while (pids.some((pid) => descendants(pid).length === 0) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const children = pids.map((pid) => descendants(pid));
    expect(children.map((list) => list.length)).toEqual([1, 1]);
    for (const pid of pids) killTree(pid, "SIGKILL");
    while ([...pids, ...children.flat()].some(isAlive) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...pids, ...children.flat()].filter(isAlive)).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("isAlive", () => {
  it("does not count a zombie (exited, not yet reaped) as running", async () => {
    // `sleep 0.1` exits at once; its parent became `sleep 5` by exec, which never reaps it.
    const parent = spawn("sh", ["-c", "sleep 0.1 & exec sleep 5"], { stdio: "ignore" });
    const pid = parent.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [zombie] = descendants(pid);
    expect(zombie).toBeGreaterThan(0);
    expect(readFileSync(`/proc/${zombie}/stat`, "utf8")).toContain(") Z ");
    expect(isAlive(zombie as number)).toBe(false);
    expect(isAlive(pid)).toBe(true);
    parent.kill("SIGKILL");
  });
});
