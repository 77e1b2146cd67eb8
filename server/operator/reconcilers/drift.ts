import type { Fault } from "@/server/domain/recovery/types";
import type { AgentRank, AgentStatus } from "@/server/operator/agent-client";
import type { ObservedPod } from "./observation";
import { podRanks, reportedRanks } from "./ranks";

/**
 * An agent of a Running job that drifted from what the operator asked of it: it reports READY or STOPPING
 * (someone else sent it /stop, or the agent restarted), or, running, ranks stopped that the operator never
 * stopped, or fewer ranks than it started with (local ranks missing from its list, or fewer than its peers
 * run). Read only while the job is Running: every stop the operator itself sends (a restart, an elastic
 * scaling, a preemption) happens in another phase or step. `AgentStateDrift` is Rebound's own reason;
 * HyperPod has none. The fault is recovered as a worker crash (an in-place restart first).
 */
export const AGENT_STATE_DRIFT = "AgentStateDrift";

/**
 * States an agent reaches only once told to stop (RUNNING→STOPPING→READY,
 * docs/hyperpod-compatibility.md, "The agent protocol").
 */
const STOPPED_STATES: ReadonlySet<string> = new Set(["ready", "stopping"]);

const failed = (rank: AgentRank) =>
  rank.state === "crashed" || (rank.state === "exited" && rank.exit_code !== null && rank.exit_code !== 0);

/**
 * Ranks a running process-level-restart agent reports stopped: such an agent stops ranks only when told.
 * An in-process-restart agent restarts a rank alone on its own (early worker restart), so it is left out.
 */
function stoppedWhileRunning(view: ObservedPod): AgentRank[] {
  if (view.agent.kind !== "status") return [];
  const { status } = view.agent;
  if (status.status !== "running" || status.restartMode === "in_process_restart") return [];
  return (status.ranks ?? []).filter((rank) => rank.state === "stopped");
}

/**
 * Local ranks, of `perNode`, that a running process-level-restart agent leaves out of its rank list. An
 * empty list says nothing (the agent answers /start before it forks its workers); the unchanged agent
 * lists none at all. `perNode` is the most ranks any of the job's pods reports (ranks.ts), so a pod that
 * runs fewer than its peers shows here; so does a gap in one pod's own list.
 */
export function missingRanks(view: ObservedPod, perNode: number): number[] {
  if (view.agent.kind !== "status") return [];
  const { status } = view.agent;
  const listed = status.ranks ?? [];
  if (status.status !== "running" || status.restartMode === "in_process_restart" || listed.length === 0)
    return [];
  const present = new Set(listed.map((rank) => rank.local_rank));
  const expected = Math.max(perNode, ...listed.map((rank) => rank.local_rank + 1));
  return Array.from({ length: expected }, (_, local) => local).filter((local) => !present.has(local));
}

/**
 * Whether a view may show a drift (the detection index keeps such views, detect.ts). A pod with fewer
 * ranks than its peers but no gap is found by detectDrift's pass over every view instead: this test sees
 * one view, not the job's ranks per node.
 */
export function mayHaveDrifted(view: ObservedPod): boolean {
  if (view.agent.kind !== "status") return false;
  if (STOPPED_STATES.has(view.agent.status.status) || stoppedWhileRunning(view).length > 0) return true;
  return missingRanks(view, 0).length > 0;
}

const parseTime = (value: string | undefined): number | null => {
  const time = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? null : time;
};

/** When the agent began stopping on its own: its STOPPING (else READY) entered after it last ran. */
function stoppedAt(transitions: Partial<Record<string, string>> | undefined, now: number): number {
  const ran = parseTime(transitions?.RUNNING) ?? Number.NEGATIVE_INFINITY;
  const entered = [transitions?.STOPPING, transitions?.READY].map(parseTime);
  const since = entered.find((time): time is number => time !== null && time >= ran);
  return Math.min(since ?? now, now);
}

/**
 * A READY or STOPPING report that shows the agent never ran since it was last ready: its transitions name
 * no RUNNING, or one older than its READY/STOPPING entries. Such a line predates the operator's /start (a
 * pushed line still on its way when the /start was answered, as under load at a job's start): not a stop
 * by someone else. Without transitions (an agent that sends none) nothing can be told apart: not stale.
 */
function staleStopped(transitions: Partial<Record<string, string>> | undefined): boolean {
  if (!transitions) return false;
  const ran = parseTime(transitions.RUNNING);
  if (ran === null) return true;
  const stopped = [transitions.STOPPING, transitions.READY].map(parseTime).filter((time) => time !== null);
  return stopped.length > 0 && Math.max(...stopped) < ran;
}

/**
 * The agent faulted on its own in this run (FAULTED entered since it last entered RUNNING) before it was
 * stopped: its own fault and reason apply (what the unchanged agent, which lists no ranks, still says).
 */
export function faultedThisRun(status: { transitions?: Partial<Record<string, string>> }): boolean {
  const faulted = parseTime(status.transitions?.FAULTED);
  const ran = parseTime(status.transitions?.RUNNING);
  return faulted !== null && ran !== null && faulted >= ran;
}

const rankList = (ranks: readonly number[]) => (ranks.length === 1 ? "rank " : "ranks ") + ranks.join(", ");

type Drift = { fault: Fault; message: string };

/** A rank that failed on its own before the agent was stopped: a WorkerCrash of those ranks. */
function crashOf(view: ObservedPod, input: { status: AgentStatus; now: number }): Drift | null {
  const crashed = reportedRanks(view).filter(failed);
  if (crashed.length === 0) return null;
  const pod = view.expected.name;
  const ranks = crashed.map((rank) => rank.rank);
  const at = Math.min(parseTime(input.status.fault_at) ?? input.now, input.now);
  return {
    fault: {
      kind: "WorkerCrash",
      reason: "WorkerCrash",
      at,
      pods: [pod],
      node: view.pod?.node ?? undefined,
      ranks,
    },
    message: `A training worker process has crashed on pod ${pod} (${rankList(ranks)})`,
  };
}

/**
 * The ranks stopped outside the operator: those stopped while the agent runs; else, for a stopped or
 * stopping agent (which may not have seen every rank end yet), all but those that finished on their own;
 * the pod's ranks for an agent that lists none.
 */
function driftedRanks(
  view: ObservedPod,
  input: { stoppedWhileRunning: AgentRank[]; perNode: number },
): number[] {
  const listed = reportedRanks(view).filter((rank) => rank.state !== "exited");
  const stopped = input.stoppedWhileRunning.length > 0 ? input.stoppedWhileRunning : listed;
  return stopped.length > 0 ? stopped.map((rank) => rank.rank) : podRanks(view, input.perNode);
}

/**
 * The fault a drifted view stands for, with the message for its record and event; null when it has not
 * drifted. A rank that failed on its own (crashed, exited non-zero) keeps its reason: a WorkerCrash.
 */
export function driftFault(view: ObservedPod, at: { perNode: number; now: number }): Drift | null {
  if (view.agent.kind !== "status" || view.pod?.phase !== "Running") return null;
  const { status } = view.agent;
  const stoppedRanks = stoppedWhileRunning(view);
  const running = stoppedRanks.length > 0;
  if (!STOPPED_STATES.has(status.status) && !running) return missingFault(view, at);
  if (!running && staleStopped(status.transitions)) return null;
  const crash = crashOf(view, { status, now: at.now });
  if (crash) return crash;
  const pod = view.expected.name;
  const ranks = driftedRanks(view, { stoppedWhileRunning: stoppedRanks, perNode: at.perNode });
  const what = running ? "RUNNING with stopped ranks" : status.status.toUpperCase();
  const message = `The agent of pod ${pod} reports ${what}, which the operator did not ask for: ${rankList(ranks)} stopped outside the operator (${AGENT_STATE_DRIFT})`;
  const fault: Fault = {
    kind: "WorkerCrash",
    reason: AGENT_STATE_DRIFT,
    at: running ? at.now : stoppedAt(status.transitions, at.now),
    pods: [pod],
    node: view.pod.node ?? undefined,
    ranks,
  };
  return { fault, message };
}

/** A running agent that lists fewer ranks than it started with: the missing ones drifted. */
function missingFault(view: ObservedPod, at: { perNode: number; now: number }): Drift | null {
  const missing = missingRanks(view, at.perNode);
  if (missing.length === 0) return null;
  const pod = view.expected.name;
  const status = view.agent.kind === "status" ? view.agent.status : null;
  const assigned = status?.assigned_rank;
  const group = assigned !== undefined && /^\d+$/.test(assigned) ? Number(assigned) : view.expected.groupRank;
  const ranks = missing.map((local) => group * at.perNode + local);
  const listed = status?.ranks?.length ?? 0;
  const message = `The agent of pod ${pod} reports RUNNING with ${listed} of ${Math.max(at.perNode, listed + missing.length)} ranks, which the operator did not ask for: ${rankList(ranks)} missing (${AGENT_STATE_DRIFT})`;
  const fault: Fault = {
    kind: "WorkerCrash",
    reason: AGENT_STATE_DRIFT,
    at: at.now,
    pods: [pod],
    node: view.pod?.node ?? undefined,
    ranks,
  };
  return { fault, message };
}
