import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, type Stats, statSync } from "node:fs";
import path from "node:path";

/**
 * Who local pods run as. An operator started as root (`npm start` in a container, a root shell) does not
 * hand root to every job: its agents and their workers run as an unprivileged system user, created on
 * first need, which owns only the pod's working directories and reads nothing of the operator's (the
 * `<data dir>/operator-token` is 0600 root; the embedded PostgreSQL's data dir is 0700 `postgres`). An
 * operator started as anyone else runs pods as itself, as before: it has nothing to drop.
 */
export const POD_USER_NAME = "rebound-pod";

export type PodUser = { name: string; uid: number; gid: number };

/** `nobody`'s usual ids, when even `id nobody` cannot tell. */
const NOBODY: PodUser = { name: "nobody", uid: 65534, gid: 65534 };

/** Runs a command, returning its stdout; throws when it cannot start or exits non-zero. */
export type RunCommand = (command: string, args: string[]) => string;

const runCommand: RunCommand = (command, args) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 10_000 });

function lookup(run: RunCommand, name: string): PodUser | null {
  try {
    const uid = Number(run("id", ["-u", name]).trim());
    const gid = Number(run("id", ["-g", name]).trim());
    // A user named so but holding uid 0 (or group 0) would drop nothing.
    if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0 || gid === 0) return null;
    return { name, uid, gid };
  } catch {
    return null;
  }
}

/**
 * `rebound-pod`, made by `useradd --system` (its own group, no home, no login shell) when missing; where
 * useradd is unavailable or fails (no shadow utilities, a read-only /etc), `nobody`.
 */
export function resolvePodUser(run: RunCommand = runCommand): PodUser {
  const existing = lookup(run, POD_USER_NAME);
  if (existing) return existing;
  try {
    run("useradd", [
      "--system",
      "--user-group",
      "--no-create-home",
      "--home-dir",
      "/nonexistent",
      "--shell",
      "/usr/sbin/nologin",
      POD_USER_NAME,
    ]);
  } catch {
    // Below: another operator may have made it meanwhile; else nobody.
  }
  return lookup(run, POD_USER_NAME) ?? lookup(run, "nobody") ?? NOBODY;
}

let resolved: PodUser | undefined;

/** The user local pods run as: null when this process is not root (pods then run as this process does). */
export function podUser(): PodUser | null {
  if (process.getuid?.() !== 0) return null;
  resolved ??= resolvePodUser();
  return resolved;
}

const SEARCH = 1;

/** Whether a file's mode grants `bit` to the user (owner, group or other bits; root's bypass not assumed). */
export function grants(stat: Pick<Stats, "uid" | "gid" | "mode">, user: PodUser, bit: number): boolean {
  const shift = stat.uid === user.uid ? 6 : stat.gid === user.gid ? 3 : 0;
  return ((stat.mode >> shift) & bit) !== 0;
}

/** Access bits, as in a mode's rwx. */
export const ACCESS = { read: 4, execute: 1 } as const;

/**
 * Why the user cannot use `file` as asked (a directory on its way it cannot enter, or the file itself
 * lacking `bit`); null when it can.
 */
export function deniedTo(user: PodUser, file: string, bit: number = ACCESS.read): string | null {
  const absolute = path.resolve(file);
  const parts = absolute.split(path.sep).filter(Boolean);
  for (let depth = 0; depth < parts.length; depth += 1) {
    const dir = path.join(path.sep, ...parts.slice(0, depth));
    if (!grants(statSync(dir), user, SEARCH)) return `${user.name} (uid ${user.uid}) cannot enter ${dir}`;
  }
  return grants(statSync(absolute), user, bit)
    ? null
    : `${user.name} (uid ${user.uid}) cannot ${bit === ACCESS.execute ? "run" : "read"} ${absolute}`;
}

/**
 * Lets the user pass through (search, not list) every directory from `root` down to `dir`, both included:
 * a private data dir (mode 0700, as mkdtemp makes them) gains only o+x, so files inside stay as closed as
 * their own modes keep them.
 */
export function openPathFor(root: string, dir: string): void {
  const relative = path.relative(root, dir);
  if (relative.startsWith("..") || path.isAbsolute(relative)) throw new Error(`${dir} is not inside ${root}`);
  let current = root;
  for (const part of ["", ...relative.split(path.sep).filter(Boolean)]) {
    current = path.join(current, part);
    const mode = statSync(current).mode & 0o7777;
    if ((mode & SEARCH) === 0) chmodSync(current, mode | SEARCH);
  }
}

/**
 * A directory the pod writes (its log dir, its home, its job's checkpoints), made if missing and given to
 * the user, mode 0700. Refused when it is not a plain directory: a symlink planted there would hand the
 * user whatever it points at.
 */
export function giveDirTo(user: PodUser, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (stat.uid !== user.uid || stat.gid !== user.gid) chownSync(dir, user.uid, user.gid);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** What a pod's process touches on disk, for preparePodFiles. */
export type PodFiles = {
  /** The pod manager's own directory: opened for the user (o+x) from here down, never above. */
  root: string;
  /** Directories the pod writes (its log dir, home, checkpoints), all inside `root`. */
  owned: readonly string[];
  /** Programs it runs (node) and files it reads (the agent, in the repo checkout). */
  runs: readonly string[];
  reads: readonly string[];
};

/**
 * Makes a pod's files ready for it to run as the user, or says (in the error) what the user cannot reach:
 * the repo checkout and node must be readable by it, and the data dir's parents enterable (the data dir
 * itself is opened for passing through).
 */
export function preparePodFiles(user: PodUser, files: PodFiles): void {
  // The data dir is the operator's own (a test's or bench's mkdtemp makes it 0700): it gains o+x only.
  openPathFor(path.dirname(files.root), path.dirname(files.root));
  const denied = [
    deniedTo(user, path.dirname(files.root), SEARCH),
    ...files.runs.map((file) => deniedTo(user, file, ACCESS.execute)),
    ...files.reads.map((file) => deniedTo(user, file, ACCESS.read)),
  ].find((reason) => reason !== null);
  if (denied) {
    throw new Error(
      `local pods run as ${user.name} when the operator runs as root, and ${denied}: give it read access ` +
        "(directories: search) to the checkout and the data dir's parents, or start Rebound as a non-root user",
    );
  }
  for (const dir of files.owned) {
    mkdirSync(path.dirname(dir), { recursive: true });
    openPathFor(files.root, path.dirname(dir));
    giveDirTo(user, dir);
  }
}
