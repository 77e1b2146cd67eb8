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
  type RunCommand,
  resolvePodUser,
} from "./pod-user";

const dir = mkdtempSync(path.join(tmpdir(), "rebound-pod-user-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user that owns nothing here (root can hand it directories; anyone else hands them to itself). */
const stranger: PodUser = { name: "stranger", uid: 54321, gid: 54321 };
const self: PodUser = { name: "self", uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const owner = self.uid === 0 ? stranger : self;

/** `id` and `useradd` as a table: which users exist, and whether useradd works here. */
function commands(users: Record<string, [number, number]>, useradd: "works" | "fails"): RunCommand {
  return (command, args) => {
    if (command === "useradd") {
      if (useradd === "fails") throw new Error("useradd: cannot lock /etc/passwd");
      users[args.at(-1) as string] = [999, 995];
      return "";
    }
    const entry = users[args[1] as string];
    if (!entry) throw new Error(`id: '${args[1]}': no such user`);
    return `${args[0] === "-u" ? entry[0] : entry[1]}\n`;
  };
}

describe("resolvePodUser", () => {
  it("uses rebound-pod when it exists", () => {
    expect(resolvePodUser(commands({ "rebound-pod": [998, 994] }, "fails"))).toEqual({
      name: "rebound-pod",
      uid: 998,
      gid: 994,
    });
  });

  it("creates rebound-pod with useradd when missing", () => {
    expect(resolvePodUser(commands({ nobody: [65534, 65534] }, "works"))).toMatchObject({
      name: "rebound-pod",
      uid: 999,
    });
  });

  it("falls back to nobody where useradd fails", () => {
    expect(resolvePodUser(commands({ nobody: [65534, 65533] }, "fails"))).toEqual({
      name: "nobody",
      uid: 65534,
      gid: 65533,
    });
  });

  it("never takes a user holding uid or gid 0", () => {
    const run = commands({ "rebound-pod": [0, 0], nobody: [65534, 65534] }, "fails");
    expect(resolvePodUser(run).name).toBe("nobody");
  });
});

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
    preparePodFiles(owner, { root, owned: [logs], runs: [process.execPath], reads: [] });
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
      preparePodFiles(stranger, { root, owned: [logs], runs: [process.execPath], reads: [secret] }),
    ).toThrow(/local pods run as stranger .* cannot read .*secret: give it read access/);
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
      runs: [process.execPath],
      reads: [],
    });
    expect(statSync(data).mode & 0o777).toBe(0o701);
  });
});
