import { describe, expect, it } from "vitest";
import { onFailure } from "@/server/domain/recovery/crash-loop";
import { backOffUntil, displayStatus, readState, setCondition, statusReason, withState } from "./job-state";

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

describe("the status a crash loop shows (issue 36)", () => {
  it("says a crash loop's failure reason once", () => {
    const decision = onFailure({
      state: { restartsWithoutProgress: 5 },
      progressed: false,
      limit: 5,
      cause: "The agent of pod w-0 exited with code 3",
    });
    if (decision.action !== "fail") throw new Error("expected the crash loop to fail the job");
    const status = setCondition(
      {},
      { type: "Failed", status: "True", reason: "CrashLoop", message: decision.reason },
      NOW,
    );
    expect(statusReason(status)).toBe(
      "CrashLoop: 5 restarts in a row without progress (limit 5); last failure: The agent of pod w-0 exited with code 3",
    );
    // An older operator's message already carried its reason: not said twice.
    const older = setCondition(
      {},
      { type: "Failed", status: "True", reason: "CrashLoop", message: "CrashLoop: 5 restarts" },
      NOW,
    );
    expect(statusReason(older)).toBe("CrashLoop: 5 restarts");
  });

  it("shows BackOff while a restart waits out its back-off, until the next try", () => {
    const waiting = readState(olderStatus("POD_REPLACEMENT"), NOW);
    waiting.recovery = waiting.recovery ? { ...waiting.recovery, notBefore: NOW + 12_000 } : null;
    // PodsRunning is True (HyperPod's STATUS would say so) while nothing runs.
    const status = setCondition({}, { type: "PodsRunning", status: "True", reason: "PodsRunning" }, NOW);
    expect(backOffUntil(waiting, NOW)).toBe(NOW + 12_000);
    expect(displayStatus(status, backOffUntil(waiting, NOW))).toBe("BackOff");
    expect(backOffUntil(waiting, NOW + 12_000)).toBeNull();
    expect(displayStatus(status, backOffUntil(waiting, NOW + 12_000))).toBe("PodsRunning");
  });

  it("shows BackOff while a pod that exited at start waits to be created again", () => {
    const state = readState({}, NOW);
    state.crashLoop = { restartsWithoutProgress: 2, progressed: false, notBefore: NOW + 10_000 };
    expect(state.phase).toBe("Starting");
    expect(backOffUntil(state, NOW + 1)).toBe(NOW + 10_000);
    expect(backOffUntil({ ...state, phase: "Failed" }, NOW + 1)).toBeNull();
  });
});
