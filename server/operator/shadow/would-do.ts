import type { FaultLogState, RuleLines } from "@/server/domain/log-rules/fault-reason";
import { logFaultReason } from "@/server/domain/log-rules/fault-reason";
import { decideRecovery } from "@/server/domain/recovery/decide";
import type {
  ClusterView,
  Fault,
  RecoveryStatusInput,
  RestartRecord,
  RunPolicyInput,
} from "@/server/domain/recovery/types";

/**
 * What the restart policy would have done about a shadow rule's fault (issue 12), decided by the operator's
 * own decideRecovery over the job's history, in words; never carried out.
 */
export type ShadowFault = {
  pod: string;
  node: string | null;
  rank: number;
  state: FaultLogState;
  rules: RuleLines;
  at: number;
};

const FAULT_KIND = { HANGING: "LogHang", SLOW: "LogSlow", FAULTED: "LogFault" } as const;

export function wouldDo(input: {
  fault: ShadowFault;
  runPolicy: RunPolicyInput | undefined;
  status: RecoveryStatusInput;
  history: readonly RestartRecord[];
  cluster: ClusterView;
}): { action: string; reason: string } {
  const { fault } = input;
  const reason = logFaultReason(fault.state, fault.rules);
  const decisionFault: Fault = {
    kind: FAULT_KIND[fault.state],
    rule: fault.rules[0]?.rule ?? "",
    at: fault.at,
    pods: [fault.pod],
    ranks: [fault.rank],
    ...(fault.node ? { node: fault.node } : {}),
    reason,
  };
  const decision = decideRecovery({
    runPolicy: input.runPolicy,
    status: input.status,
    history: input.history,
    fault: decisionFault,
    now: fault.at,
    cluster: input.cluster,
  });
  switch (decision.action) {
    case "PLR":
      return { action: `restarted rank ${fault.rank} in place`, reason };
    case "POD_REPLACEMENT":
      return { action: `replaced pod ${decision.pods.join(", ")}`, reason };
    case "JLR":
      return { action: "restarted the whole job", reason };
    case "FAIL":
      return { action: `failed the job (${decision.reason})`, reason };
  }
}

/** "would have restarted rank 3 in place: rule hang HANGING at 12:01:05Z" */
export function verdictMessage(input: { action: string; rule: string; state: string; at: number }): string {
  const time = new Date(input.at).toISOString().slice(11, 19);
  return `would have ${input.action}: rule ${input.rule} ${input.state} at ${time}Z`;
}
