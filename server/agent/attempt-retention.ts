import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Attempt logs kept while a pod runs: an agent writes `<log-dir>/<runId>_<agentId>/attempt_<n>/` per /start,
 * so a job restarting for days would fill the disk (1,244 attempt directories were once left by one pod).
 * Each new attempt removes its run's attempts older than the newest KEPT_ATTEMPTS, and the log dir's run
 * directories (earlier agents of the pod) beyond the newest KEPT_AGENT_RUNS.
 */
export const KEPT_ATTEMPTS = 5;
export const KEPT_AGENT_RUNS = 3;

const ATTEMPT = /^attempt_(\d+)$/;

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

function entries(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
}

/** Removes the run's `attempt_<n>` directories with n <= attempt - KEPT_ATTEMPTS (this one is about to start). */
export function pruneAttempts(runDir: string, attempt: number): string[] {
  const removed: string[] = [];
  for (const name of entries(runDir)) {
    const n = Number(ATTEMPT.exec(name)?.[1] ?? Number.NaN);
    if (Number.isInteger(n) && n <= attempt - KEPT_ATTEMPTS) {
      rmSync(path.join(runDir, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

/**
 * Removes earlier agents' run directories beside `runDir` (`<runId>_<agentId>`: same run id, another agent),
 * keeping the newest KEPT_AGENT_RUNS, this one included; nothing else in the log dir is touched.
 */
export function pruneAgentRuns(runDir: string, runId: string): string[] {
  const logDir = path.dirname(runDir);
  const own = path.basename(runDir);
  const others = entries(logDir)
    .filter((name) => name !== own && name.startsWith(`${runId}_`))
    .map((name) => ({ name, at: statSync(path.join(logDir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  const stale = others.slice(KEPT_AGENT_RUNS - 1);
  for (const { name } of stale) rmSync(path.join(logDir, name), { recursive: true, force: true });
  return stale.map(({ name }) => name);
}
