import { readdirSync, readFileSync } from "node:fs";

/**
 * Process-tree helpers for the local back end: a "pod" is an agent process whose workers run in their own
 * process groups, so killing a pod means killing every descendant. Linux reads /proc; elsewhere only the
 * process itself and its group are signalled.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return null;
  }
}

export function descendants(root: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    const pid = Number(entry);
    const parent = parentOf(pid);
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
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

/** Signals a process and all its descendants (children first collected, so none escapes by re-parenting). */
export function killTree(root: number, sig: NodeJS.Signals = "SIGKILL"): void {
  const all = [root, ...descendants(root)];
  for (const pid of all) signal(pid, sig);
  signal(-root, sig);
}
