// Builders shared by the recovery tests.
import { decideRecovery } from "./decide";
import type {
  ClusterView,
  Fault,
  RecoveryDecision,
  RecoveryStatusInput,
  RestartRecord,
  RunPolicyInput,
} from "./types";

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
/** A fixed epoch-ms origin for test clocks. */
export const T0 = Date.UTC(2026, 0, 1);

export const at = (minutes: number): number => T0 + minutes * MINUTE;

/** A worker crash of rank 1 on the healthy node-1. */
export function crash(
  time: number,
  overrides: { pods?: string[]; ranks?: number[]; node?: string } = {},
): Fault {
  return {
    kind: "WorkerCrash",
    at: time,
    pods: ["job-pod-1"],
    ranks: [1],
    node: "node-1",
    reason: "WorkerCrash",
    ...overrides,
  };
}

/** node-3 (hosting job-pod-3, rank 3) became unhealthy. */
export function nodeFault(time: number, node = "node-3"): Fault {
  return { kind: "NodeFault", at: time, pods: ["job-pod-3"], ranks: [3], node, reason: "NodeFault" };
}

/** Four job nodes, all healthy, no spare, no free node. */
export function cluster(overrides: Partial<ClusterView> = {}): ClusterView {
  return {
    healthyNodes: ["node-0", "node-1", "node-2", "node-3"],
    spareNodes: [],
    freeNodes: [],
    ...overrides,
  };
}

export function restart(time: number, type: RestartRecord["type"], nodes: string[] = []): RestartRecord {
  return { at: time, type, nodes, pods: [] };
}

/**
 * Feeds faults at the given minutes through decideRecovery, writing each decision's status and history record
 * back as the operator would. Stops at the first FAIL.
 */
export function simulate(input: {
  runPolicy: RunPolicyInput;
  minutes: number[];
  fault?: (time: number) => Fault;
}): RecoveryDecision[] {
  const makeFault = input.fault ?? crash;
  const history: RestartRecord[] = [];
  let status: RecoveryStatusInput | undefined;
  const decisions: RecoveryDecision[] = [];
  for (const minute of input.minutes) {
    const now = at(minute);
    const decision = decideRecovery({
      runPolicy: input.runPolicy,
      status,
      history,
      fault: makeFault(now),
      now,
      cluster: cluster(),
    });
    decisions.push(decision);
    if (decision.record === null) break;
    history.push(decision.record);
    status = { restartCount: decision.restartCount, restartStatus: decision.restartStatus };
  }
  return decisions;
}

/** "PLR", "POD_REPLACEMENT", "JLR" or "FAIL(<limit>)" per decision, space-separated. */
export function actions(decisions: readonly RecoveryDecision[]): string {
  return decisions.map((d) => (d.action === "FAIL" ? `FAIL(${d.limit})` : d.action)).join(" ");
}
