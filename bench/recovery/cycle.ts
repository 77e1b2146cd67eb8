import { injectFault } from "@/server/operator/api/faults";
import { listRestartEvents, type RestartEventRow } from "@/server/store/restart-events/queries";
import { type BenchJob, waitStepping } from "./job";
import type { BenchOperator } from "./operator";
import { readStages, type Stages } from "./stages";

/**
 * One measured fault: wait for the steady state (every rank stepping), inject, wait for the restart
 * event to be settled, and keep its timeline. Times are epoch ms on this machine's clock, which the
 * operator (this process), the agents and the trainers share.
 */
/** stalled: the agent process of the rank's pod is stopped (SIGSTOP): its /status calls time out. */
export type FaultKind = "crash" | "hang" | "node" | "stalled";

export type Sample = {
  kind: FaultKind;
  rank: number;
  /** When the benchmark injected the fault. */
  injectedAt: number;
  /** Hang: when the agent received the hung rank's last line (the rule window runs from there). */
  lastLineAt: number | null;
  event: RestartEventRow;
  stages: Stages;
};

const EXPECTED_REASON: Record<FaultKind, string> = {
  crash: "WorkerCrash",
  hang: "LogHang_JobHang",
  node: "NodeFault",
  stalled: "AgentUnreachable",
};

const events = (operator: BenchOperator, job: BenchJob) =>
  listRestartEvents(operator.db, { namespace: job.ref.namespace, jobName: job.ref.name });

function rankOf(operator: BenchOperator, job: BenchJob, rank: number) {
  const pods = operator.live(job.ref)?.pods ?? [];
  for (const pod of pods) {
    const found = pod.ranks.find((candidate) => candidate.rank === rank);
    if (found) return found;
  }
  return null;
}

/** The hung rank's last line, as the agent last reported it for the process that hung. */
function trackLastLine(operator: BenchOperator, job: BenchJob, target: { rank: number; pid: number | null }) {
  let lastLineAt: number | null = null;
  return {
    sample() {
      const rank = rankOf(operator, job, target.rank);
      if (!rank || rank.pid !== target.pid || !rank.last_line_at) return;
      lastLineAt = Math.max(lastLineAt ?? 0, Date.parse(rank.last_line_at));
    },
    value: () => lastLineAt,
  };
}

/** The pod whose agent runs `rank`. */
function podOf(operator: BenchOperator, job: BenchJob, rank: number): string | null {
  const pods = operator.live(job.ref)?.pods ?? [];
  return pods.find((pod) => pod.ranks.some((candidate) => candidate.rank === rank))?.name ?? null;
}

/** Stops the agent process of the rank's pod; its replacement (pod replacement) kills it. */
function stallAgent(operator: BenchOperator, job: BenchJob, rank: number): void {
  const pod = podOf(operator, job, rank);
  const pid = pod ? operator.backend.pods.pidOf(job.ref.namespace, pod) : null;
  if (pid === null) throw new Error(`no agent process for rank ${rank}`);
  process.kill(pid, "SIGSTOP");
}

export async function measureFault(opts: {
  operator: BenchOperator;
  job: BenchJob;
  kind: FaultKind;
  rank: number;
}): Promise<Sample> {
  const { operator, job, kind, rank } = opts;
  await waitStepping(operator, job, 120_000);
  const before = (await events(operator, job)).length;
  const restartsBefore = operator.live(job.ref)?.restartCount ?? 0;
  const tracker = trackLastLine(operator, job, { rank, pid: rankOf(operator, job, rank)?.pid ?? null });
  tracker.sample();
  const injectedAt = Date.now();
  if (kind === "stalled") stallAgent(operator, job, rank);
  else
    injectFault({ backend: operator.backend, live: operator.deps.live, ref: job.ref, input: { kind, rank } });
  const event = await operator.waitForJob(
    job.ref,
    `restart event after a ${kind} of rank ${rank}`,
    async () => {
      tracker.sample();
      // The operator's in-memory view first, so the benchmark does not load the database while it measures.
      const live = operator.live(job.ref);
      if (!live || live.restartCount <= restartsBefore || live.recovery !== null) return null;
      const event = (await events(operator, job))[before];
      return event && event.outcome !== "pending" ? event : null;
    },
  );
  if (
    event.faultReason !== EXPECTED_REASON[kind] ||
    !event.ranks.includes(rank) ||
    event.outcome !== "recovered"
  )
    throw new Error(`unexpected restart event after a ${kind} of rank ${rank}: ${JSON.stringify(event)}`);
  const stages = await readStages(operator, job, event);
  // The failed node "reboots" once its pod was replaced, so the next node fault finds a free node again.
  if (kind === "node" && event.node) operator.backend.nodes.setHealth(event.node, "Schedulable");
  return { kind, rank, injectedAt, lastLineAt: tracker.value(), event, stages };
}
