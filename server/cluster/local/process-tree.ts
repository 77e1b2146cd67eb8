import { readdirSync, readFileSync } from "node:fs";

/**
 * Process-tree helpers for the local back end: a "pod" is an agent process whose workers run in their own
 * process groups, so killing a pod means killing every descendant. Linux reads /proc; elsewhere only the
 * process itself and its group are signalled.
 */
/** Running (a zombie, dead but not yet reaped by its parent, is not: it holds nothing but its pid). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

/**
 * When the process started (clock ticks since boot, /proc/<pid>/stat field 22): with the pid, it names one
 * process even after the pid is reused (pids wrap at pid_max, 32768 by default). null when gone or not Linux.
 */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** The same process as when `startTime` was read is still running (a reused pid is another process). */
export function isStillAlive(process: { pid: number; startTime: string | null }): boolean {
  if (!isAlive(process.pid)) return false;
  return process.startTime === null || startTimeOf(process.pid) === process.startTime;
}

/** The parent pid in a /proc/<pid>/stat line: "pid (comm) state ppid …"; comm may hold spaces and ')'. */
export function parentFromStat(stat: string): number | null {
  const end = stat.lastIndexOf(")");
  // After the last ')': a space, the one-letter state, a space, then the parent pid.
  const parent = end < 0 ? Number.NaN : Number.parseInt(stat.slice(end + 4), 10);
  return Number.isNaN(parent) ? null : parent;
}

function parentOf(pid: number): number | null {
  try {
    return parentFromStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

function scanChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return children;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  return children;
}

/**
 * One scan of /proc serves every lookup made by the same synchronous run of code (the cache is dropped at
 * the next microtask checkpoint): reading every process's stat file is the costly part (hundreds of files
 * while a 64-rank job runs), and callers ask for many roots in a row (every pod of a job, when sampling or
 * stopping them all). Nothing this process does in between adds to a pod's tree (a process it spawns is
 * its own child), and other processes fork concurrently whether the scan is a microsecond old or new.
 */
let scan: Map<number, number[]> | null = null;

function childrenByParent(): Map<number, number[]> {
  if (scan !== null) return scan;
  scan = scanChildren();
  queueMicrotask(() => {
    scan = null;
  });
  return scan;
}

export function descendants(root: number): number[] {
  const children = childrenByParent();
  const found: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Signals a process and all its descendants: collected first, so none escapes by re-parenting; the
 * descendants signalled before the root, so the root can still reap the ones it can.
 */
export function killTree(root: number, sig: NodeJS.Signals = "SIGKILL"): void {
  for (const pid of descendants(root).reverse()) signal(pid, sig);
  signal(root, sig);
  signal(-root, sig);
}
