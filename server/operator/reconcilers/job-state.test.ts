import { describe, expect, it } from "vitest";
import { readState, withState } from "./job-state";

const NOW = 1_700_000_000_000;

/** status.rebound as an operator that spelled a pod replacement "REPLACE_PODS" left it, mid-recovery. */
function olderStatus(action: string) {
  const recovery = {
    eventId: "row-1",
    action,
    stage: "replacing",
    reason: "NodeFault",
    faultAt: NOW - 5_000,
    detectedAt: NOW - 4_000,
    pods: ["job-w-1"],
    avoidNodes: ["n1"],
    useSpare: null,
    podsCreatedAt: { "job-w-1": NOW - 60_000 },
  };
  const elastic = {
    size: 3,
    lastScalingAt: null,
    lastRestartAt: null,
    failures: 0,
    lastFailureAt: null,
    upSince: null,
    why: null,
    lastReason: null,
    scaling: {
      from: 4,
      to: 3,
      reason: "FaultyScaleDown",
      stage: "stopping",
      since: NOW - 2_000,
      stageSince: NOW - 1_000,
      timeoutSeconds: 60,
      fault: { eventId: "row-1", reason: "NodeFault", action, faultAt: NOW - 5_000, detectedAt: NOW - 4_000 },
    },
  };
  return {
    rebound: {
      phase: "Recovering",
      since: NOW - 4_000,
      recovery,
      record: null,
      rendezvous: null,
      crashLoop: { restartsWithoutProgress: 1, progressed: false, notBefore: null },
      elastic,
      history: [{ at: NOW - 4_000, type: "POD_REPLACEMENT", nodes: ["n1"], pods: ["job-w-1"] }],
    },
  };
}

describe("readState", () => {
  it("goes on with a pod replacement an older operator saved as REPLACE_PODS", () => {
    const state = readState(olderStatus("REPLACE_PODS"), NOW);

    expect(state.phase).toBe("Recovering");
    expect(state.since).toBe(NOW - 4_000);
    expect(state.recovery).toMatchObject({
      eventId: "row-1",
      action: "POD_REPLACEMENT",
      stage: "replacing",
      pods: ["job-w-1"],
      avoidNodes: ["n1"],
      podsCreatedAt: { "job-w-1": NOW - 60_000 },
    });
    expect(state.elastic?.scaling?.fault?.action).toBe("POD_REPLACEMENT");
    expect(state.crashLoop.restartsWithoutProgress).toBe(1);
  });

  it("writes the state back in the contract's spelling", () => {
    const status = withState({}, readState(olderStatus("REPLACE_PODS"), NOW));
    const saved = JSON.parse(JSON.stringify(status)).rebound;

    expect(saved.recovery.action).toBe("POD_REPLACEMENT");
    expect(saved.elastic.scaling.fault.action).toBe("POD_REPLACEMENT");
    expect(readState(status, NOW).recovery?.action).toBe("POD_REPLACEMENT");
  });

  it("reads the current spelling as it is", () => {
    expect(readState(olderStatus("POD_REPLACEMENT"), NOW).recovery?.action).toBe("POD_REPLACEMENT");
    expect(readState(olderStatus("JLR"), NOW).recovery?.action).toBe("JLR");
  });

  it("starts afresh from a status whose restart type it does not know", () => {
    const state = readState(olderStatus("REBOOT_NODE"), NOW);

    expect(state).toMatchObject({ phase: "Starting", since: NOW, recovery: null, elastic: null });
  });
});
