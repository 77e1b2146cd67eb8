import path from "node:path";

/**
 * Where a local pod's files live: `<pods dir>/<namespace>/<job>/<job uid>/<pod>/` (agent.log, the agent's
 * attempt logs, its home). One directory per run (job uid), so a job resubmitted under the same name starts
 * with empty logs, and a deleted job's files go with it (log-retention.ts keeps a few past runs' logs).
 * Without `run`: the layout from before runs were kept apart (`<pods dir>/<namespace>/<pod>/`).
 */
export type PodRun = { job: string; uid: string };

export const runDir = (podsDir: string, input: { namespace: string; run: PodRun }): string =>
  path.join(podsDir, input.namespace, input.run.job, input.run.uid);

/** The runs of one job name, each a directory named by its uid. */
export const jobRunsDir = (podsDir: string, input: { namespace: string; job: string }): string =>
  path.join(podsDir, input.namespace, input.job);

export function podDir(podsDir: string, input: { namespace: string; pod: string; run?: PodRun }): string {
  const { run } = input;
  if (!run) return path.join(podsDir, input.namespace, input.pod);
  return path.join(runDir(podsDir, { namespace: input.namespace, run }), input.pod);
}
