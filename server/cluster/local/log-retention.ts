import { existsSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import path from "node:path";
import { jobRunsDir, type PodRun, runDir } from "./pod-dirs";

/**
 * What is left of a deleted job's files on the local back end: its pods' logs (agent.log and the agent's
 * attempt logs), for the newest PAST_RUNS_KEPT runs of each job name and at most PAST_RUN_LOG_BYTES of them
 * per name; everything else (checkpoints, the pods' homes, older runs) goes with the job.
 */
export const PAST_RUNS_KEPT = 3;
export const PAST_RUN_LOG_BYTES = 50 * 1024 * 1024;

/** Bytes under a directory (files only; links are not followed). */
export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** The run's directory keeps only its pods' logs; it is stamped with the time it ended (the newest first). */
function keepLogsOnly(dir: string): void {
  for (const pod of readdirSync(dir, { withFileTypes: true })) {
    if (pod.isDirectory()) rmSync(path.join(dir, pod.name, "home"), { recursive: true, force: true });
  }
  const now = new Date();
  utimesSync(dir, now, now);
}

/** Called once a job's deletion is finalized: trims its run to logs, then the name's runs to the bound. */
export function retainRunLogs(podsDir: string, input: { namespace: string; run: PodRun }): void {
  const ended = runDir(podsDir, input);
  if (existsSync(ended)) keepLogsOnly(ended);
  const parent = jobRunsDir(podsDir, { namespace: input.namespace, job: input.run.job });
  if (!existsSync(parent)) return;
  const runs = readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(parent, entry.name))
    .map((dir) => ({ dir, at: statSync(dir).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  let bytes = 0;
  for (const [index, run] of runs.entries()) {
    bytes += directoryBytes(run.dir);
    if (index >= PAST_RUNS_KEPT || bytes > PAST_RUN_LOG_BYTES)
      rmSync(run.dir, { recursive: true, force: true });
  }
  if (readdirSync(parent).length === 0) rmSync(parent, { recursive: true, force: true });
}
