// Fault classification and the faulty-instance list written to status.
import type { Fault, LatestFaultyPodInstanceList } from "./types";

export type Remedy = "PLR" | "POD_REPLACEMENT";

/** True when the fault's node is known and unhealthy now (a NodeFault is unhealthy by definition). */
export function isOnUnhealthyNode(fault: Fault, healthyNodes: ReadonlySet<string>): boolean {
  if (fault.node === undefined) return false;
  return fault.kind === "NodeFault" || !healthyNodes.has(fault.node);
}

/**
 * How a fault is remediated while the restart budget allows it. Any fault on an unhealthy node needs new pods
 * (our choice: a PLR on a dead node cannot succeed); so does an agent that stopped answering (our choice: it
 * cannot take /stop or /start, so its pod is replaced) and a lost pod. Process faults get an in-place PLR.
 */
export function remedyFor(fault: Fault, healthyNodes: ReadonlySet<string>): Remedy {
  if (isOnUnhealthyNode(fault, healthyNodes)) return "POD_REPLACEMENT";
  switch (fault.kind) {
    case "WorkerCrash":
    case "LogHang":
    case "LogSlow":
    case "LogFault":
      return "PLR";
    case "AgentUnreachable":
    case "PodGone":
    case "NodeFault":
      return "POD_REPLACEMENT";
    default:
      throw new Error(`Unknown fault kind: ${JSON.stringify(fault satisfies never)}`);
  }
}

const HYPERPOD_NODE_NAME = /^hyperpod-(i-[0-9a-f]+)$/;

/** EC2 instance id of a HyperPod node ("hyperpod-i-076a…" → "i-076a…"); other node names are used as they are. */
export function instanceIdOfNode(node: string): string {
  return HYPERPOD_NODE_NAME.exec(node)?.[1] ?? node;
}

export function faultyPodInstanceList(
  fault: Fault,
  restartType: LatestFaultyPodInstanceList["restartType"],
): LatestFaultyPodInstanceList {
  return {
    restartType,
    faultyInstanceIdList: fault.node === undefined ? [] : [instanceIdOfNode(fault.node)],
    faultyPodList: [...fault.pods],
    faultyRankList: fault.ranks.map(String),
  };
}
