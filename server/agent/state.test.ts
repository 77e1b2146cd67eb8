import { describe, expect, it } from "vitest";
import { AGENT_STATES, type AgentState, canTransition, createAgentStateMachine, isoTimestamp } from "./state";

const ALLOWED: Record<AgentState, AgentState[]> = {
  INIT: ["READY", "SHUTDOWN"],
  READY: ["RUNNING", "SHUTDOWN"],
  RUNNING: ["COMPLETED", "FAULTED", "STOPPING", "SHUTDOWN"],
  FAULTED: ["STOPPING", "SHUTDOWN"],
  STOPPING: ["READY"],
  COMPLETED: ["SHUTDOWN", "STOPPING"],
  SHUTDOWN: [],
};

const FAULT = { reason: "WorkerCrash", message: "boom", at: 1_700_000_000_500 };

function clock() {
  let t = 1_700_000_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("PLR transition table", () => {
  for (const from of AGENT_STATES) {
    for (const to of AGENT_STATES) {
      const allowed = ALLOWED[from].includes(to);
      it(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        expect(canTransition(from, to)).toBe(allowed);
      });
    }
  }
});

describe("createAgentStateMachine", () => {
  it("starts in INIT with no transitions recorded", () => {
    const sm = createAgentStateMachine(clock());
    expect(sm.snapshot()).toEqual({
      state: "INIT",
      transitions: {},
      reason: null,
      message: null,
      faultAt: null,
    });
  });

  it("records when each state was last entered, Python-isoformat style", () => {
    const c = clock();
    const sm = createAgentStateMachine(c);
    sm.transition("READY");
    c.advance(1234);
    sm.transition("RUNNING");
    expect(sm.snapshot().transitions).toEqual({
      READY: "2023-11-14T22:13:20.000000+00:00",
      RUNNING: "2023-11-14T22:13:21.234000+00:00",
    });
  });

  it("refuses an invalid transition and changes nothing", () => {
    const sm = createAgentStateMachine(clock());
    sm.transition("READY");
    const before = sm.snapshot();
    expect(sm.transition("STOPPING")).toEqual({
      ok: false,
      error: "Invalid state transition from READY to STOPPING",
    });
    expect(sm.snapshot()).toEqual(before);
  });

  it("needs a fault to enter FAULTED", () => {
    const sm = createAgentStateMachine(clock());
    sm.transition("READY");
    sm.transition("RUNNING");
    expect(sm.transition("FAULTED").ok).toBe(false);
    expect(sm.current()).toBe("RUNNING");
  });

  it("carries reason and message: Running, the fault through STOPPING, cleared on READY", () => {
    const sm = createAgentStateMachine(clock());
    sm.transition("READY");
    sm.transition("RUNNING");
    expect(sm.snapshot()).toMatchObject({ reason: "Running", message: null });
    sm.transition("FAULTED", FAULT);
    expect(sm.snapshot()).toMatchObject({
      state: "FAULTED",
      reason: "WorkerCrash",
      message: "boom",
      faultAt: FAULT.at,
    });
    sm.transition("STOPPING");
    expect(sm.snapshot()).toMatchObject({ reason: "WorkerCrash", faultAt: FAULT.at });
    sm.transition("READY");
    expect(sm.snapshot()).toMatchObject({ reason: null, message: null, faultAt: null });
  });

  it("clears the running reason on COMPLETED", () => {
    const sm = createAgentStateMachine(clock());
    sm.transition("READY");
    sm.transition("RUNNING");
    sm.transition("COMPLETED");
    expect(sm.snapshot()).toMatchObject({ state: "COMPLETED", reason: null });
  });
});

describe("isoTimestamp", () => {
  it("writes microseconds and +00:00", () => {
    expect(isoTimestamp(Date.UTC(2024, 10, 20, 23, 37, 17, 855))).toBe("2024-11-20T23:37:17.855000+00:00");
  });
});
