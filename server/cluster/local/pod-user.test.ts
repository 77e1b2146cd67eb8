import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ACCESS,
  deniedTo,
  giveDirTo,
  openPathFor,
  type PodUser,
  preparePodFiles,
  shareDirWith,
} from "./pod-user";

const dir = mkdtempSync(path.join(tmpdir(), "rebound-pod-user-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user that owns nothing here (root can hand it directories; anyone else hands them to itself). */
const stranger: PodUser = { name: "stranger", uid: 54321, gid: 54321 };
const self: PodUser = { name: "self", uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const owner = self.uid === 0 ? stranger : self;

describe("deniedTo", () => {
  it("names the directory the user cannot enter, or the file it cannot read", () => {
    const closed = path.join(dir, "closed");
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    writeFileSync(path.join(closed, "file"), "x", { mode: 0o644 });
    const secret = path.join(dir, "secret");
    writeFileSync(secret, "x", { mode: 0o600 });
    chmodSync(dir, 0o755);
    expect(deniedTo(stranger, path.join(closed, "file"))).toBe(`stranger (uid 54321) cannot enter ${closed}`);
    expect(deniedTo(stranger, secret)).toBe(`stranger (uid 54321) cannot read ${secret}`);
    expect(deniedTo(stranger, process.execPath, ACCESS.execute)).toBeNull();
  });
});

describe("openPathFor", () => {
  it("adds search (o+x) only, from the root down, and nothing above it", () => {
    const root = path.join(dir, "open-root");
    const deep = path.join(root, "a", "b");
    mkdirSync(deep, { recursive: true });
    for (const each of [root, path.join(root, "a"), deep]) chmodSync(each, 0o700);
    chmodSync(dir, 0o750);
    openPathFor(root, deep);
    for (const each of [root, path.join(root, "a"), deep]) expect(statSync(each).mode & 0o777).toBe(0o701);
    expect(statSync(dir).mode & 0o777).toBe(0o750);
    chmodSync(dir, 0o755);
  });

  it("refuses a directory outside the root", () => {
    expect(() => openPathFor(path.join(dir, "open-root"), dir)).toThrow(/is not inside/);
  });
});

describe("giveDirTo and preparePodFiles", () => {
  it("hands the pod's directories to the user, mode 0700", () => {
    const root = path.join(dir, "data");
    mkdirSync(root, { mode: 0o700 });
    const logs = path.join(root, "pods", "ns", "pod", "logs");
    preparePodFiles(owner, { root, owned: [logs], job: null, runs: [process.execPath], reads: [] });
    expect(lstatSync(logs)).toMatchObject({ uid: owner.uid, gid: owner.gid });
    expect(lstatSync(logs).mode & 0o777).toBe(0o700);
    expect(deniedTo(stranger, path.dirname(logs), ACCESS.execute)).toBeNull();
  });

  it("refuses a symlink where a pod's directory goes", () => {
    const link = path.join(dir, "link");
    symlinkSync("/etc", link);
    expect(() => giveDirTo(owner, link)).toThrow(/is not a directory/);
    expect(lstatSync("/etc").uid).toBe(0);
  });

  it("says what the user cannot reach, and changes nothing", () => {
    const root = path.join(dir, "refused");
    mkdirSync(root, { mode: 0o700 });
    const secret = path.join(dir, "refused-secret");
    writeFileSync(secret, "x", { mode: 0o600 });
    const logs = path.join(root, "logs");
    expect(() =>
      preparePodFiles(stranger, {
        root,
        owned: [logs],
        job: null,
        runs: [process.execPath],
        reads: [secret],
      }),
    ).toThrow(
      /local pods run as users of their own \(stranger here\) .* cannot read .*secret: give them read access/,
    );
    expect(() => lstatSync(logs)).toThrow(/ENOENT/);
  });

  it("opens a private data dir (mkdtemp's 0700) for passing through, and nothing more", () => {
    const data = path.join(dir, "private-data");
    mkdirSync(data, { mode: 0o700 });
    const root = path.join(data, "local");
    mkdirSync(root, { mode: 0o700 });
    preparePodFiles(owner, {
      root,
      owned: [path.join(root, "pods", "p", "logs")],
      job: null,
      runs: [process.execPath],
      reads: [],
    });
    expect(statSync(data).mode & 0o777).toBe(0o701);
  });
});

describe("giveDirTo hands on what an earlier user of the pod left", () => {
  it("gives the whole tree to the new user, links themselves and not what they point at", () => {
    const logs = path.join(dir, "handed-on", "logs");
    mkdirSync(path.join(logs, "run-1", "attempt_0"), { recursive: true });
    writeFileSync(path.join(logs, "run-1", "attempt_0", "stdout.log"), "step=1\n");
    symlinkSync("/etc/hostname", path.join(logs, "run-1", "planted"));
    // As the earlier incarnation's lease left it (pod-reclaim.ts handBack): root's, 0700.
    chmodSync(logs, 0o700);
    giveDirTo(owner, logs);
    for (const each of ["", "run-1", "run-1/attempt_0", "run-1/attempt_0/stdout.log", "run-1/planted"]) {
      expect(lstatSync(path.join(logs, each))).toMatchObject({ uid: owner.uid, gid: owner.gid });
    }
    expect(lstatSync("/etc/hostname").uid).toBe(0);
    expect(lstatSync(logs).mode & 0o7777).toBe(0o700);
  });
});

describe("shareDirWith", () => {
  it("makes a job's directory root's and its group's: checkpoints 2770 with their files moved to the group", () => {
    const checkpoints = path.join(dir, "job", "checkpoints");
    mkdirSync(checkpoints, { recursive: true });
    writeFileSync(path.join(checkpoints, "checkpoint.json"), '{"step":1100}');
    if (process.getuid?.() !== 0) {
      // Only a root operator shares directories with a job's group (pod-identity.ts); anyone else may not.
      expect(() => shareDirWith(stranger.gid, checkpoints, 0o2770)).toThrow(/EPERM/);
      return;
    }
    shareDirWith(stranger.gid, path.dirname(checkpoints), 0o750);
    shareDirWith(stranger.gid, checkpoints, 0o2770);
    expect(lstatSync(path.dirname(checkpoints))).toMatchObject({ uid: 0, gid: stranger.gid });
    expect(lstatSync(path.dirname(checkpoints)).mode & 0o7777).toBe(0o750);
    expect(lstatSync(checkpoints)).toMatchObject({ uid: 0, gid: stranger.gid });
    expect(lstatSync(checkpoints).mode & 0o7777).toBe(0o2770);
    expect(lstatSync(path.join(checkpoints, "checkpoint.json"))).toMatchObject({ uid: 0, gid: stranger.gid });
  });
});
