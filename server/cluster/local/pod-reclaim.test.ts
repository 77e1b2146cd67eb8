import { spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { handBack, killProcessesOf, processesOf, sweep } from "./pod-reclaim";
import { isAlive } from "./process-tree";

const dir = mkdtempSync(path.join(tmpdir(), "rebound-pod-reclaim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const root = process.getuid?.() === 0;
/** The account being reclaimed: a uid no one uses, under root; else this process's own (all it can own). */
const account = root ? 54_331 : (process.getuid?.() as number);
const otherPod = 54_332;

function file(at: string, uid = account, gid = account): string {
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, "x");
  if (root) chownSync(at, uid, gid);
  return at;
}

describe("handBack", () => {
  it("returns a pod's directory to root (or the given owner), mode 0700, and leaves what is inside", () => {
    const logs = path.join(dir, "pod", "logs");
    const inside = file(path.join(logs, "stdout.log"));
    if (root) chownSync(logs, account, account);
    chmodSync(logs, 0o755);
    const owner = root ? { uid: 0, gid: 0 } : { uid: account, gid: process.getgid?.() as number };
    handBack(logs, owner);
    expect(lstatSync(logs)).toMatchObject({ uid: owner.uid, gid: owner.gid });
    expect(lstatSync(logs).mode & 0o7777).toBe(0o700);
    expect(lstatSync(inside).uid).toBe(account);
    handBack(path.join(dir, "never-made"));
  });
});

describe("sweep", () => {
  it("removes the account's files where anyone may write, and leaves its job's and others' trees alone", async () => {
    const shared = path.join(dir, "tmp");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const top = file(path.join(shared, "left.txt"));
    // Deep in another pod's tree, in a directory it opened to anyone: found.
    const deepDir = path.join(shared, "other", "a", "b");
    mkdirSync(deepDir, { recursive: true });
    for (const each of [path.join(shared, "other"), path.join(shared, "other", "a"), deepDir]) {
      if (root) chownSync(each, otherPod, otherPod);
      chmodSync(each, 0o777);
    }
    const deep = file(path.join(deepDir, "setuid-copy"));
    // A job's checkpoints (its group's, closed to others): kept.
    const checkpoints = path.join(shared, "job", "checkpoints");
    mkdirSync(checkpoints, { recursive: true });
    chmodSync(path.join(shared, "job"), 0o750);
    const checkpoint = file(path.join(checkpoints, "checkpoint.json"));
    const someoneElse = path.join(shared, "someone-else.txt");
    writeFileSync(someoneElse, "x");
    if (!root) {
      // Everything here is this process's own: the account's top-level files go, closed trees stay.
      expect(await sweep("user", new Set([account]), [shared], new Set())).toBeGreaterThan(0);
      expect(existsSync(top)).toBe(false);
      expect(existsSync(checkpoint)).toBe(true);
      return;
    }
    const removed = await sweep("user", new Set([account]), [shared], new Set([otherPod]));
    expect(removed).toBe(2);
    expect([existsSync(top), existsSync(deep)]).toEqual([false, false]);
    expect([existsSync(checkpoint), existsSync(someoneElse), existsSync(deepDir)]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe("killProcessesOf", () => {
  it("kills every process running as the account, and finds none after", async () => {
    if (!root) {
      // Only root runs processes as another account; here the account is this process's own user.
      const child = spawn("sleep", ["30"]);
      expect(processesOf("user", new Set([account]))).toContain(child.pid);
      child.kill("SIGKILL");
      return;
    }
    const children = [0, 1].map(() => spawn("sleep", ["30"], { uid: account, gid: account }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesOf("user", new Set([account])).sort()).toEqual(children.map((child) => child.pid).sort());
    expect(killProcessesOf("user", new Set([account]))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const child of children) expect(isAlive(child.pid as number)).toBe(false);
    expect(processesOf("user", new Set([account]))).toEqual([]);
  });
});
