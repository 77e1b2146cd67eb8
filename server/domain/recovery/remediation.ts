// Remediation reporting: the Running-condition message and the fault latencies behind it.

export type RemediationLatency = {
  /** detectedAt − faultAt: how long the fault went unnoticed. */
  detectionMs: number;
  /** recoveredAt − detectedAt: how long the restart took. */
  recoveryMs: number;
  /** recoveredAt − faultAt: what the Running message reports. */
  totalMs: number;
};

/** Whole milliseconds, never negative (our choice: the agent's and the operator's clocks may disagree slightly). */
function span(from: number, to: number): number {
  return Math.max(0, Math.round(to - from));
}

/** Latencies of one remediated fault; all times are epoch ms. */
export function remediationLatency(input: {
  faultAt: number;
  detectedAt: number;
  recoveredAt: number;
}): RemediationLatency {
  return {
    detectionMs: span(input.faultAt, input.detectedAt),
    recoveryMs: span(input.detectedAt, input.recoveredAt),
    totalMs: span(input.faultAt, input.recoveredAt),
  };
}

/**
 * Message of the Running condition after a fault is remediated, as the HyperPod operator writes it. We report
 * the total time from the fault to recovery (our choice; AWS does not say where it starts the clock).
 */
export function remediatedMessage(reason: string, ms: number): string {
  return `The fault of reason ${reason} was remediated in ${Math.max(0, Math.round(ms))} milliseconds.`;
}
