import { writeFileSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Lowers a process's CPU priority to `nice` (0-19). A process started in a session of its own (spawned
 * `detached`) is, on Linux, scheduled as a group of its own (autogroup), and a process's nice value only
 * ranks it within its group: so the group's nice is set too. Best effort: returns why it could not (no
 * permission), null when done. Without /proc/<pid>/autogroup (not Linux, a kernel without autogroups, or
 * the process already gone) only the nice value is set.
 */
export function lowerPriority(pid: number, nice: number): string | null {
  try {
    setPriority(pid, nice);
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? null : String(error);
  }
}
