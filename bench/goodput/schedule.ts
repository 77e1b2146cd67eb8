/**
 * The fault schedule (pure): one fault in the middle of every `intervalMs` slot of the run, the kinds in
 * turn (crash, hang, NaN, node), spread over every pod and local rank. The same plan for every mode, so
 * the three runs meet the same faults in the same order at the same offsets.
 */

export const FAULT_KINDS = ["crash", "hang", "nan", "node"] as const;
export type GoodputFaultKind = (typeof FAULT_KINDS)[number];

export type PlannedFault = { index: number; offsetMs: number; kind: GoodputFaultKind; rank: number };

export function faultPlan(input: { durationMs: number; intervalMs: number; ranks: number }): PlannedFault[] {
  const { durationMs, intervalMs, ranks } = input;
  if (intervalMs <= 0 || ranks <= 0) throw new Error("faultPlan: interval and ranks must be positive");
  const count = Math.floor(durationMs / intervalMs);
  return Array.from({ length: count }, (_, index) => ({
    index,
    offsetMs: index * intervalMs + Math.floor(intervalMs / 2),
    kind: FAULT_KINDS[index % FAULT_KINDS.length] as GoodputFaultKind,
    // 9 is coprime with any power of two: consecutive faults land on different pods and local ranks.
    rank: (index * 9 + 3) % ranks,
  }));
}

/** The ranks a fault stops: its own, or every rank of its node's pod (`ranksPerNode` consecutive ranks). */
export function victimsOf(fault: { kind: GoodputFaultKind; rank: number }, ranksPerNode: number): number[] {
  if (fault.kind !== "node") return [fault.rank];
  const first = Math.floor(fault.rank / ranksPerNode) * ranksPerNode;
  return Array.from({ length: ranksPerNode }, (_, offset) => first + offset);
}
