import { chmodSync, lchownSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";

/**
 * What ends a pod account's lease before anyone else gets the account (pod-user-pool.ts): its processes
 * killed, the directories it was given returned to root, and what it left in the machine's shared
 * directories removed, so the next pod given the same uid (or gid) inherits nothing of the last one: no
 * process to signal or read, no file to read, and no set-id program in /tmp that would let the last pod's
 * team become the next one.
 */
export type AccountKind = "user" | "group";

/** Directories every local account can write into (sticky, world-writable) on a usual Linux. */
export const SHARED_DIRS = ["/tmp", "/var/tmp", "/dev/shm"] as const;

/** Every running process's ids (real, effective, saved, filesystem); zombies hold nothing and are left out. */
function scanProcesses(): { pid: number; uids: number[]; gids: number[] }[] {
  const found: { pid: number; uids: number[]; gids: number[] }[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  const ids = (status: string, field: string) =>
    (new RegExp(`^${field}:\\s+(.*)$`, "m").exec(status)?.[1] ?? "").split(/\s+/).map(Number);
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (/^State:\s+Z/m.test(status)) continue;
      found.push({ pid, uids: ids(status, "Uid"), gids: ids(status, "Gid") });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The pids running as one of the accounts (any of the process's uids, for users; gids, for groups). */
export function processesOf(kind: AccountKind, ids: ReadonlySet<number>): number[] {
  return scanProcesses()
    .filter((proc) => (kind === "user" ? proc.uids : proc.gids).some((id) => ids.has(id)))
    .map((proc) => proc.pid);
}

/**
 * Kills every process of the accounts, looking again until none is left (one may fork while the others
 * are killed); false when some outlived 50 rounds.
 */
export function killProcessesOf(kind: AccountKind, ids: ReadonlySet<number>): boolean {
  for (let round = 0; round < 50; round += 1) {
    const pids = processesOf(kind, ids);
    if (pids.length === 0) return true;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  return processesOf(kind, ids).length === 0;
}

/**
 * The directory goes back to root, mode 0700, so the account (whoever holds it next) cannot enter it; what
 * is inside keeps its owners and is handed on whole when the directory is given out again (pod-user.ts).
 * Not a directory (gone, or never made): nothing to do.
 */
export function handBack(dir: string, owner = { uid: 0, gid: 0 }): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(dir);
  } catch {
    return;
  }
  if (!stat.isDirectory()) return;
  // Mode first: between the two calls the directory is closed to everyone but its owner.
  chmodSync(dir, 0o700);
  lchownSync(dir, owner.uid, owner.gid);
}

const SEARCH_BY_OTHERS = 0o001;
const WRITE_BY_OTHERS = 0o002;

/** The uids of the pool's users (`rebound-pod-<n>`, pod-user-pool.ts), as /etc/passwd lists them. */
export function poolUids(file = "/etc/passwd"): Set<number> {
  const uids = new Set<number>();
  try {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [name, , uid] = line.split(":");
      if (name?.startsWith("rebound-pod-")) uids.add(Number(uid));
    }
  } catch {
    // no such file: no pool users
  }
  return uids;
}

/**
 * Removes, under `roots`, every entry owned by one of the accounts (its uid for users, its gid for groups),
 * a directory with all it holds. A pod can have left an entry only in a directory it could write: its own
 * (removed whole), its job's (checkpoints: open to the group only, kept) or one anyone may write. So the
 * walk goes into directories anyone may enter that anyone may write or that another pod made (a pod can
 * make a writable one deep in its own tree for another to use); not into other users' trees (a checkout's
 * node_modules copied to /tmp), which holds it to milliseconds where a full walk of /tmp took seconds.
 */
export async function sweep(
  kind: AccountKind,
  ids: ReadonlySet<number>,
  roots: readonly string[] = SHARED_DIRS,
  pods: ReadonlySet<number> = poolUids(),
): Promise<number> {
  let removed = 0;
  const ownedBy = (stat: { uid: number; gid: number }) => ids.has(kind === "user" ? stat.uid : stat.gid);
  const walk = async (dir: string, depth: number): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) await visit(path.join(dir, name), depth);
  };
  const entered = (stat: { mode: number; uid: number }) =>
    (stat.mode & SEARCH_BY_OTHERS) !== 0 && ((stat.mode & WRITE_BY_OTHERS) !== 0 || pods.has(stat.uid));
  const visit = async (full: string, depth: number): Promise<void> => {
    const stat = await lstat(full).catch(() => null);
    if (stat === null) return;
    if (ownedBy(stat)) {
      await rm(full, { recursive: true, force: true }).catch(() => undefined);
      removed += 1;
    } else if (stat.isDirectory() && entered(stat) && depth < 64) {
      await walk(full, depth + 1);
    }
  };
  for (const root of roots) await walk(root, 0);
  return removed;
}

/**
 * Kills the accounts' processes, then sweeps, batched: releases that come together (a job's 64 pods removed
 * at once) share one look at /proc and one walk of the shared directories; one asked while a walk runs
 * waits for the next.
 */
export function createSweeper(roots: readonly string[] = SHARED_DIRS) {
  const pending: Record<AccountKind, Set<number>> = { user: new Set(), group: new Set() };
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const run = async () => {
    const batch = { user: new Set(pending.user), group: new Set(pending.group) };
    pending.user.clear();
    pending.group.clear();
    for (const kind of ["user", "group"] as const) {
      if (batch[kind].size === 0) continue;
      killProcessesOf(kind, batch[kind]);
      await sweep(kind, batch[kind], roots);
    }
  };
  return (kind: AccountKind, id: number): Promise<void> => {
    pending[kind].add(id);
    if (next) return next;
    const start = (): Promise<void> => {
      next = null;
      running = run().finally(() => {
        running = null;
      });
      return running;
    };
    next = running ? running.then(start, start) : Promise.resolve().then(start);
    return next;
  };
}
