import {
  AGENT_VERSION,
  type AgentStatus,
  type AgentStatusName,
  RESTART_MODE,
} from "@/server/domain/agent-api/protocol";
import { type RankRecord, rankStatus } from "./rank-record";
import { type AgentState, isoTimestamp, type StateSnapshot } from "./state";

/**
 * The `GET /status` body: the HyperPod agent's keys, in its order, each present only when set (reference
 * 2.2), plus Rebound's `ranks` (the last attempt's local ranks) and `fault_at`.
 */

/** What the operator told this agent in its last /start or /update. */
export type Assignment = {
  assignedRank: number | null;
  ipVersion: string | null;
  spare: boolean;
  progress: Record<string, unknown> | null;
};

export const EMPTY_ASSIGNMENT: Assignment = {
  assignedRank: null,
  ipVersion: null,
  spare: false,
  progress: null,
};

export function statusName(state: AgentState): AgentStatusName {
  switch (state) {
    case "INIT":
      return "init";
    case "READY":
      return "ready";
    case "RUNNING":
      return "running";
    case "COMPLETED":
      return "completed";
    case "FAULTED":
      return "faulted";
    case "STOPPING":
      return "stopping";
    case "SHUTDOWN":
      return "shutdown";
    default:
      return state satisfies never;
  }
}

const when = <T extends object>(condition: boolean, value: () => T): T | Record<string, never> =>
  condition ? value() : {};

/** What only an in-process-restart agent reports (HyperPod's StatusResponseJSONEncoder, IPR branch). */
export type InProcessStatus = {
  /** "in_process_restart", or the restart a rank asked the operator for. */
  restartMode: string;
  workerData: readonly unknown[];
  rankLabels: Record<string, string>;
  /** The node holds in-memory state (its ranks are paused): keep it. */
  priority: boolean;
};

export function buildStatus(input: {
  snapshot: StateSnapshot;
  assignment: Assignment;
  ranks: readonly RankRecord[];
  inProcess?: InProcessStatus;
}): AgentStatus {
  const { snapshot, assignment, ranks, inProcess } = input;
  const { reason, message, faultAt } = snapshot;
  const { ipVersion, progress, assignedRank } = assignment;
  return {
    status: statusName(snapshot.state),
    ...when(Object.keys(snapshot.transitions).length > 0, () => ({ transitions: snapshot.transitions })),
    ...when(reason !== null, () => ({ reason: reason ?? "" })),
    ...when(message !== null, () => ({ message: message ?? "" })),
    restartMode: inProcess?.restartMode ?? RESTART_MODE,
    ...when(inProcess !== undefined && inProcess.workerData.length > 0, () => ({
      worker_data: inProcess?.workerData,
    })),
    ...when(inProcess !== undefined, () => ({ rank_labels: inProcess?.rankLabels })),
    ...when(ipVersion !== null, () => ({ ipversion: ipVersion ?? "" })),
    ...when(progress !== null, () => ({ progress: progress ?? {} })),
    agent_version: AGENT_VERSION,
    ...when(assignedRank !== null, () => ({ assigned_rank: String(assignedRank) })),
    spare: assignment.spare ? "True" : "False",
    ...when(inProcess?.priority === true, () => ({ priority: "True" })),
    // Always present, empty until the workers are forked: it tells the operator this agent lists its ranks
    // (HyperPod's own agent sends no `ranks`, and its ranks are known only by count).
    ranks: ranks.map(rankStatus),
    ...when(faultAt !== null, () => ({ fault_at: isoTimestamp(faultAt ?? 0) })),
  };
}
