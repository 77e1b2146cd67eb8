/**
 * The agent's state machine (docs/hyperpod-compatibility.md, "The agent protocol"; the process-level-restart
 * agent). Invalid transitions are refused and change nothing. `transitions` keeps, per state, when it was
 * last entered (Python isoformat in UTC, e.g. "2024-11-20T23:37:17.855000+00:00"). The reason/message pair
 * follows the state: RUNNING sets reason "Running"; FAULTED takes the fault's reason, message and time; READY
 * and COMPLETED clear them; STOPPING and SHUTDOWN keep what was there (so the fault stays visible while
 * cleaning up).
 */

export const AGENT_STATES = [
  "INIT",
  "READY",
  "RUNNING",
  "COMPLETED",
  "FAULTED",
  "STOPPING",
  "SHUTDOWN",
] as const;

export type AgentState = (typeof AGENT_STATES)[number];

export const PLR_TRANSITIONS: Readonly<Record<AgentState, readonly AgentState[]>> = {
  INIT: ["READY", "SHUTDOWN"],
  READY: ["RUNNING", "SHUTDOWN"],
  RUNNING: ["COMPLETED", "FAULTED", "STOPPING", "SHUTDOWN"],
  FAULTED: ["STOPPING", "SHUTDOWN"],
  STOPPING: ["READY"],
  COMPLETED: ["SHUTDOWN", "STOPPING"],
  SHUTDOWN: [],
};

/** The in-process-restart agent's (HyperPod's IPR_VALID_TRANSITIONS): PLR's plus →INIT and INIT/READY→FAULTED. */
export const IPR_TRANSITIONS: Readonly<Record<AgentState, readonly AgentState[]>> = {
  INIT: ["READY", "SHUTDOWN", "FAULTED"],
  READY: ["INIT", "RUNNING", "SHUTDOWN", "FAULTED"],
  RUNNING: ["INIT", "COMPLETED", "FAULTED", "STOPPING", "SHUTDOWN"],
  FAULTED: ["INIT", "STOPPING", "SHUTDOWN"],
  STOPPING: ["READY", "INIT"],
  COMPLETED: ["SHUTDOWN", "STOPPING"],
  SHUTDOWN: [],
};

export function canTransition(
  from: AgentState,
  to: AgentState,
  table: Readonly<Record<AgentState, readonly AgentState[]>> = PLR_TRANSITIONS,
): boolean {
  return table[from].includes(to);
}

export type Fault = { reason: string; message: string; at: number };

export type StateSnapshot = {
  state: AgentState;
  transitions: Partial<Record<AgentState, string>>;
  reason: string | null;
  message: string | null;
  /** Epoch ms at which the fault happened (a worker's exit, a rule's detection). */
  faultAt: number | null;
};

export type TransitionResult = { ok: true } | { ok: false; error: string };

export type AgentStateMachine = {
  current(): AgentState;
  /** `fault` is required for (and only used by) FAULTED. */
  transition(to: AgentState, fault?: Fault): TransitionResult;
  snapshot(): StateSnapshot;
};

/** Python's `datetime.now(timezone.utc).isoformat()` shape: microseconds and `+00:00`. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000+00:00");
}

type Detail = Pick<StateSnapshot, "reason" | "message" | "faultAt">;

const CLEARED: Detail = { reason: null, message: null, faultAt: null };

function detailFor(to: AgentState, previous: Detail, fault: Fault | undefined): Detail {
  switch (to) {
    case "RUNNING":
      return { reason: "Running", message: null, faultAt: null };
    case "FAULTED":
      return fault ? { reason: fault.reason, message: fault.message, faultAt: fault.at } : previous;
    case "READY":
    case "COMPLETED":
    case "INIT":
      return CLEARED;
    case "STOPPING":
    case "SHUTDOWN":
      return previous;
    default:
      return to satisfies never;
  }
}

export function createAgentStateMachine({
  now,
  table = PLR_TRANSITIONS,
}: {
  now: () => number;
  table?: Readonly<Record<AgentState, readonly AgentState[]>>;
}): AgentStateMachine {
  let state: AgentState = "INIT";
  let detail: Detail = CLEARED;
  const transitions: Partial<Record<AgentState, string>> = {};
  return {
    current: () => state,
    transition(to, fault) {
      if (!canTransition(state, to, table)) {
        return { ok: false, error: `Invalid state transition from ${state} to ${to}` };
      }
      if (to === "FAULTED" && fault === undefined) {
        return { ok: false, error: "A fault reason is required to enter FAULTED" };
      }
      state = to;
      detail = detailFor(to, detail, fault);
      transitions[to] = isoTimestamp(now());
      return { ok: true };
    },
    snapshot: () => ({ state, transitions: { ...transitions }, ...detail }),
  };
}
