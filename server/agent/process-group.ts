/**
 * Signals to a worker's process group (workers are spawned detached, so each leads its own group and a
 * signal reaches everything it started). Falls back to the process itself when the group is gone.
 */

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/** True if the group (or the process) received the signal; false if nothing by that id is left. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) !== "ESRCH") throw error;
  }
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

/** Signals the group only (no fallback to the pid); false if the group is gone. */
export function signalGroupOnly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

/** Whether a process with this id exists (signal 0 probes without sending anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}
