import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  type Stats,
  statSync,
} from "node:fs";
import path from "node:path";

/**
 * Who local pods run as. An operator started as root (`npm start` in a container, a root shell) does not
 * hand root to every job, nor one user to all of them: each pod's agent and workers run as a user of their
 * own and its job's group (pod-user-pool.ts), and own only the pod's working directories; they read
 * nothing of the operator's (the `<data dir>/operator-token` is 0600 root; the embedded PostgreSQL's data
 * dir is 0700 `postgres`) nor of another pod's. An operator started as anyone else runs pods as itself, as
 * before: it has nothing to drop.
 */
export type PodUser = { name: string; uid: number; gid: number };

/** Whether pods get users of their own: only root can run a process as another user. */
export const podUsersEnabled = (): boolean => process.getuid?.() === 0;

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

/** Every entry under `dir` (not `dir`), links themselves rather than what they point at. */
function lchownTree(dir: string, ids: (stat: Stats) => { uid: number; gid: number }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const stat = lstatSync(full);
    const next = ids(stat);
    if (stat.uid !== next.uid || stat.gid !== next.gid) lchownSync(full, next.uid, next.gid);
    if (stat.isDirectory()) lchownTree(full, ids);
  }
}

/** Made if missing; refused when not a plain directory (a planted link would hand over what it points at). */
function plainDirectory(dir: string): Stats {
  mkdirSync(dir, { recursive: true });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  return stat;
}

/**
 * A directory the pod writes (its log dir, its home), made if missing and given to the user, mode 0700.
 * One the pod's earlier incarnation had (the same pod name recreated, as another user) is handed on whole:
 * the agent prunes and appends its earlier runs' logs. What is inside was out of every other account's
 * reach since that incarnation's lease ended (pod-reclaim.ts handBack: root's, 0700), so it holds still
 * while it is walked.
 */
export function giveDirTo(user: PodUser, dir: string): void {
  const stat = plainDirectory(dir);
  if (stat.uid !== user.uid || stat.gid !== user.gid) {
    chmodSync(dir, 0o700);
    lchownTree(dir, () => ({ uid: user.uid, gid: user.gid }));
    chownSync(dir, user.uid, user.gid);
  }
  if ((stat.mode & 0o7777) !== 0o700) chmodSync(dir, 0o700);
}

/**
 * A directory of the job's, root's and the job's group's: `mode` 0750 (the job's directory: its pods
 * read the fault file there) or 02770 (its checkpoints: every pod of the job writes them, new files
 * keep the group). Files left from an earlier group of the job's move to this one.
 */
export function shareDirWith(gid: number, dir: string, mode: number): void {
  const stat = plainDirectory(dir);
  if (stat.uid !== 0 || stat.gid !== gid) {
    chmodSync(dir, 0o700);
    chownSync(dir, 0, gid);
    if (mode & 0o2000) lchownTree(dir, (entry) => ({ uid: entry.uid, gid }));
  }
  if ((stat.mode & 0o7777) !== mode || stat.gid !== gid) chmodSync(dir, mode);
}

/** What a pod's process touches on disk, for preparePodFiles. */
export type PodFiles = {
  /** The pod manager's own directory: opened for the user (o+x) from here down, never above. */
  root: string;
  /** Directories the pod writes alone (its log dir, home), all inside `root`. */
  owned: readonly string[];
  /** Its job's directory (the pods read the fault file there) and those its pods write together (checkpoints). */
  job: { dir: string; shared: readonly string[] } | null;
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
      `local pods run as users of their own (${user.name} here) when the operator runs as root, and ${denied}: give them read access ` +
        "(directories: search) to the checkout and the data dir's parents, or start Rebound as a non-root user",
    );
  }
  for (const dir of files.owned) {
    mkdirSync(path.dirname(dir), { recursive: true });
    openPathFor(files.root, path.dirname(dir));
    giveDirTo(user, dir);
  }
  if (files.job) {
    mkdirSync(path.dirname(files.job.dir), { recursive: true });
    openPathFor(files.root, path.dirname(files.job.dir));
    shareDirWith(user.gid, files.job.dir, 0o750);
    for (const dir of files.job.shared) shareDirWith(user.gid, dir, 0o2770);
  }
}
