import type { JobContext } from "./deps";
import type { ObservedPod } from "./observe";
import { startAgents } from "./steps";

/**
 * In-process recovery, HyperPod's IPR flow seen from the operator (hyperpod_elastic_agent 1.1.3:
 * server/server.py, elastic_agent/ipr_hyperpod_elastic_agent.py). An agent started with
 * `--inprocess-restart` says so itself: /status `restartMode: "in_process_restart"` (get_restart_mode(); a
 * process-level agent says "process_level_restart", and an IPR agent one of whose ranks asked the operator
 * for a process- or job-level restart says that instead). For a job whose agents all run that way:
 * - stop: `/stop` without a restart mode (the agent's default "ipr"): healthy agents pause their ranks at
 *   the barrier (READY, processes and memory kept); an agent whose workers died restarts its processes
 *   (INIT, then READY once they wait at the barrier). `process_level_restart` would kill every node's workers.
 * - start: `/start` to every READY agent with `worker_data`, every agent's /status `worker_data` (what its
 *   ranks sent as job_data) put together; each agent hands it to its ranks in job_start's
 *   aggregate_worker_data, which is how a restarted rank finds a healthy peer to take its state from.
 * Jobs whose agents do not run that way are stopped and started as before (steps.ts).
 */

export const IN_PROCESS_RESTART = "in_process_restart";
const OPERATOR_RESTARTS = new Set(["process_level_restart", "job_level_restart"]);

function restartModes(ctx: JobContext): string[] {
  return ctx.obs.pods.flatMap((view) =>
    view.agent.kind === "status" && view.agent.status.restartMode ? [view.agent.status.restartMode] : [],
  );
}

/** Every agent that answers runs in-process restart, and none asks for more than that. */
export function isInProcessJob(ctx: JobContext): boolean {
  const modes = restartModes(ctx);
  return modes.includes(IN_PROCESS_RESTART) && !modes.some((mode) => OPERATOR_RESTARTS.has(mode));
}

const isEntry = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every agent's /status worker_data, in pod order. */
export function aggregateWorkerData(pods: readonly ObservedPod[]): Record<string, unknown>[] {
  return pods.flatMap((view) => {
    const data = view.agent.kind === "status" ? view.agent.status.worker_data : undefined;
    return Array.isArray(data) ? data.filter(isEntry) : [];
  });
}

/** /stop (in-process) to every agent not READY yet; true once all are READY. */
export async function pauseAgents(ctx: JobContext): Promise<boolean> {
  let allReady = true;
  await Promise.all(
    ctx.obs.pods.map(async (view) => {
      const state = view.agent.kind === "status" ? view.agent.status.status : null;
      if (state === "ready") return;
      allReady = false;
      if (!view.pod?.agentUrl || (state !== "running" && state !== "faulted" && state !== "completed"))
        return;
      await ctx.deps.agents.stop(view.pod.agentUrl, {});
    }),
  );
  return allReady;
}

/** /start to every READY agent (steps.ts's startAgents) with every agent's worker_data in each body. */
export function startInProcess(ctx: JobContext): Promise<boolean> {
  return startAgents(ctx, { workerData: aggregateWorkerData(ctx.obs.pods) });
}
