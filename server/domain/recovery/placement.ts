// Where restarted pods may go: nodes to avoid and the node for a replacement.
import { isOnUnhealthyNode } from "./faults";
import type { ClusterView, Fault } from "./types";

/**
 * Nodes to keep new pods off: the fault's node when it is unhealthy, plus up to `maxOffenders` repeat offenders
 * (worst first). Our choices: the unhealthy node does not use up a repeat-offender slot, the same list applies to
 * pod replacement and to JLR, and an unset maxNumRepeatOffendersToAvoid avoids no offender (0), since avoiding
 * nodes shrinks capacity.
 */
export function nodesToAvoid(input: {
  fault: Fault;
  healthyNodes: ReadonlySet<string>;
  offenders: readonly string[];
  maxOffenders: number | undefined;
}): string[] {
  const { fault, healthyNodes, offenders } = input;
  const unhealthy = fault.node !== undefined && isOnUnhealthyNode(fault, healthyNodes) ? [fault.node] : [];
  const picked = offenders
    .filter((node) => !unhealthy.includes(node))
    .slice(0, Math.max(0, input.maxOffenders ?? 0));
  return [...unhealthy, ...picked];
}

export type ReplacementPlacement = { useSpare: string | null; awaitingCapacity: boolean };

/**
 * Placement of the faulty node's pods (moved together onto one node). A spare is preferred, even when the old node
 * is healthy, because its agent is already up. Without one, the old node can take them back if it is healthy and
 * not avoided (a pod that vanished from a healthy node frees its slot), else any free node. With none of these the
 * pods are still recreated and wait for capacity (our choice, rather than JLR or FAIL: HyperPod replaces an
 * unhealthy instance, and faultDeadlineSeconds bounds the wait).
 */
export function placeReplacement(input: {
  fault: Fault;
  cluster: ClusterView;
  avoidNodes: readonly string[];
}): ReplacementPlacement {
  const { fault, cluster } = input;
  const avoid = new Set(input.avoidNodes);
  const usable = (node: string) => !avoid.has(node);
  const spare = cluster.spareNodes.find(usable);
  if (spare !== undefined) return { useSpare: spare, awaitingCapacity: false };
  const oldNodeUsable =
    fault.node !== undefined && usable(fault.node) && cluster.healthyNodes.includes(fault.node);
  const freeNode = cluster.freeNodes.some(usable);
  return { useSpare: null, awaitingCapacity: !(oldNodeUsable || freeNode) };
}
