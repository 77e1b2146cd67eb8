import { createCheckpointTracker } from "./checkpoints";
import type { ClientMessage } from "./socket-server";
import { type IpcWorkerGroup, restartModeOf } from "./worker-group";

/**
 * What the agent does with each message a rank sends over IPC (HyperPod's InProcessRestartSocketServer and
 * CheckpointDiscoverySocketServer callbacks). Returns the reply to send back, if any.
 */

export type RankFault = { reason: string; message: string };

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const int = (value: unknown): number => (typeof value === "number" && Number.isInteger(value) ? value : -1);

function ranksOf(body: Record<string, unknown>, localWorldSize: number) {
  const rank = int(body.rank);
  return { rank, groupRank: rank < 0 ? -1 : Math.floor(rank / localWorldSize) };
}

const labelsOf = (value: unknown): Record<string, string> =>
  typeof value === "object" && value !== null ? (value as Record<string, string>) : {};

/** A rank's data as HyperPod passes it on: a string (other JSON is kept as its JSON text). */
const dataOf = (value: unknown): string =>
  typeof value === "string" ? value : JSON.stringify(value ?? null);

/** The fault an agent reports for ranks that reported failures (HyperPod's set_agent_state_fault). */
export function rankFaultOf(group: IpcWorkerGroup): RankFault {
  const failed = group.failedRanks();
  const named = failed.find((rank) => rank.reason !== null);
  if (named?.reason) return { reason: named.reason, message: named.message ?? "" };
  return {
    reason: "WorkerReportedFault",
    message: `The processes reported a failure on ranks ${failed.map((rank) => rank.rank).join(", ")}`,
  };
}

export function createIpcDispatch(input: {
  group: IpcWorkerGroup;
  localWorldSize: number;
  onBarrier: () => void;
  onRankFault: (fault: RankFault) => void;
}) {
  const { group, localWorldSize } = input;
  const checkpoints = createCheckpointTracker();
  return (message: ClientMessage): Record<string, unknown> | null => {
    const { body, localRank } = message;
    const { rank, groupRank } = ranksOf(body, localWorldSize);
    switch (message.type) {
      case "at_rcb_barrier":
        group.notifyAtBarrier(localRank);
        input.onBarrier();
        return null;
      case "past_rcb_barrier":
        group.notifyPastBarrier(localRank);
        return null;
      case "job_data":
        group.setData({ localRank, rank, groupRank, data: dataOf(body.data) });
        return null;
      case "job_fault":
        group.failRank({
          localRank,
          rank,
          groupRank,
          reason: text(body.reason),
          message: text(body.message),
          restartMode: restartModeOf(body.restart_mode),
        });
        input.onRankFault(rankFaultOf(group));
        return null;
      case "rank_labels":
        group.assignLabels(labelsOf(body.labels));
        return null;
      case "ckpt_init":
        checkpoints.init(body);
        return null;
      case "ckpt_info_update":
        checkpoints.update(body);
        return null;
      case "ckpt_info_get":
        return { path: checkpoints.latestPath() };
      default:
        return null;
    }
  };
}
