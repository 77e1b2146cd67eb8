import { event, type JobContext, saveStatus } from "./deps";
import { type PreemptionState, setCondition } from "./job-state";
import { dropRecovery } from "./record";
import { deleteAllPods } from "./steps";

/**
 * A preempted job stops gracefully, as HyperPod's operator stops an elastic job for a scale-down or a Kueue
 * preemption (docs/hyperpod-compatibility.md, "Elastic training"): every agent gets `/stop {is_graceful:
 * true, timeout}`, so its workers get SIGUSR1 (save a checkpoint and exit) and SIGKILL only once the timeout
 * has passed; then the pods go and the job waits in its queue again. A preemption is not a fault: no restart
 * is counted, no retry budget used, no restart-timeline row written.
 */

/**
 * The graceful timeout when the job sets no spec.elasticPolicy.gracefulShutdownTimeoutInSeconds: 30 s, the
 * `--shutdown-timeout` AWS's install guide gives hyperpodrun (the agent's own default between its shutdown
 * signal and SIGKILL; docs/hyperpod-compatibility.md, "The agent's command line"). The operator sends it with
 * every graceful `/stop`.
 */
export const DEFAULT_GRACEFUL_TIMEOUT_SECONDS = 30;
/** After the timeout the agent has SIGKILLed what was left; the operator waits this much more before deleting. */
const DELETE_MARGIN_MS = 5000;

function gracefulTimeoutSeconds(ctx: JobContext): number {
  return (
    ctx.job.object.spec.elasticPolicy?.gracefulShutdownTimeoutInSeconds ?? DEFAULT_GRACEFUL_TIMEOUT_SECONDS
  );
}

const BUSY = new Set(["running", "faulted", "stopping"]);

/** Sends the graceful /stop to agents still running their workers; true once none is. */
async function stopGracefully(ctx: JobContext, preemption: PreemptionState): Promise<boolean> {
  let busy = false;
  await Promise.all(
    ctx.obs.pods.map(async (view) => {
      const state = view.agent.kind === "status" ? view.agent.status.status : null;
      if (!view.pod?.agentUrl || state === null || !BUSY.has(state)) return;
      busy = true;
      // A repeated /stop is answered without effect by an agent already STOPPING.
      if (state !== "stopping")
        await ctx.deps.agents.stop(view.pod.agentUrl, {
          restart_mode: "process_level_restart",
          is_graceful: true,
          timeout: preemption.timeoutSeconds,
        });
    }),
  );
  return !busy || ctx.now >= preemption.since + preemption.timeoutSeconds * 1000 + DELETE_MARGIN_MS;
}

/** How the workers ended, from the agents' last rank reports: on their own (after SIGUSR1), or killed. */
function rankExits(ctx: JobContext): { exited: number; killed: number; detail: string } {
  const ranks = ctx.obs.pods.flatMap((view) =>
    view.agent.kind === "status" ? (view.agent.status.ranks ?? []) : [],
  );
  const killed = ranks.filter((rank) => rank.signal === "SIGKILL").length;
  const ended = ranks.filter((rank) => rank.exit_code !== null || rank.signal !== null).length;
  const detail = ranks
    .map(
      (rank) =>
        `rank ${rank.rank} ${rank.signal ?? (rank.exit_code === null ? rank.state : `exit ${rank.exit_code}`)}`,
    )
    .join(", ");
  return { exited: ended - killed, killed, detail };
}

async function beginPreemption(
  ctx: JobContext,
  verdict: { reason: string; message: string; by: string | null },
): Promise<PreemptionState> {
  const preemption = { since: ctx.now, timeoutSeconds: gracefulTimeoutSeconds(ctx), ...verdict };
  await dropRecovery(ctx, "the job was preempted while restarting");
  ctx.state = { ...ctx.state, preemption, recovery: null };
  ctx.status = setCondition(
    ctx.status,
    { type: "Preempted", status: "True", reason: verdict.reason, message: verdict.message },
    ctx.now,
  );
  ctx.status = setCondition(
    ctx.status,
    { type: "Running", status: "False", reason: "Preempted", message: verdict.message },
    ctx.now,
  );
  // On record before the first /stop: a restarted operator continues this stop, it does not begin another.
  await saveStatus(ctx);
  await event(ctx, "Warning", "Preempted", verdict.message);
  return preemption;
}

/**
 * One step of a preemption: begins it (condition, Warning event `Preempted` with Kueue's wording), stops
 * the workers gracefully, and once they are stopped (or the timeout passed) deletes the pods and requeues
 * the job. Returns true once the job is back in its queue.
 */
export async function stepPreemption(
  ctx: JobContext,
  verdict: { reason: string; message: string; by: string | null },
): Promise<boolean> {
  const preemption = ctx.state.preemption ?? (await beginPreemption(ctx, verdict));
  if (!(await stopGracefully(ctx, preemption))) return false;
  const { exited, killed, detail } = rankExits(ctx);
  await deleteAllPods(ctx);
  ctx.state = { ...ctx.state, phase: "Pending", since: ctx.now, preemption: null, rendezvous: null };
  await ctx.deps.admission?.requeue(ctx.job);
  const waited = ((ctx.now - preemption.since) / 1000).toFixed(1);
  await event(
    ctx,
    "Normal",
    "Requeued",
    `Stopped for the preemption in ${waited} s (${exited} rank(s) exited, ${killed} killed after the ${preemption.timeoutSeconds} s graceful timeout: ${detail}); waiting for admission again`,
  );
  return true;
}
