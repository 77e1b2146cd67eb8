// runPolicy deadlines (docs/hyperpod-compatibility.md, "The job resource"): startup, fault and active time
// limits that fail the job.
import type { RunPolicyInput } from "./types";

/** The job's phase as the deadlines see it (condition types plus the operator's Starting and Fault states). */
export type DeadlinePhase =
  | "Created"
  | "Starting"
  | "PodsRunning"
  | "Running"
  | "Fault"
  | "Suspended"
  | "Completed"
  | "Failed";

export type DeadlineName = "activeDeadlineSeconds" | "startupDeadlineSeconds" | "faultDeadlineSeconds";

export type DeadlineExceeded = { deadline: DeadlineName; reason: string; elapsedMs: number };

type PhaseClocks = {
  active: boolean;
  phaseDeadline: "startupDeadlineSeconds" | "faultDeadlineSeconds" | null;
};

/**
 * Which clocks run in a phase. Our choices: Created, Starting and PodsRunning are all "starting" (not yet
 * Running); a Suspended job (Kueue) runs no clock, like a batch/v1 Job, and the operator resets startTime on
 * resume; finished jobs run none.
 */
function clocksFor(phase: DeadlinePhase): PhaseClocks {
  switch (phase) {
    case "Created":
    case "Starting":
    case "PodsRunning":
      return { active: true, phaseDeadline: "startupDeadlineSeconds" };
    case "Running":
      return { active: true, phaseDeadline: null };
    case "Fault":
      return { active: true, phaseDeadline: "faultDeadlineSeconds" };
    case "Suspended":
    case "Completed":
    case "Failed":
      return { active: false, phaseDeadline: null };
    default:
      throw new Error(`Unknown job phase: ${JSON.stringify(phase satisfies never)}`);
  }
}

const WHAT: Record<DeadlineName, string> = {
  activeDeadlineSeconds: "has been active",
  startupDeadlineSeconds: "has been starting",
  faultDeadlineSeconds: "has been in Fault",
};

function exceeded(deadline: DeadlineName, limitSeconds: number | undefined, elapsedMs: number) {
  if (limitSeconds === undefined || elapsedMs <= limitSeconds * 1000) return null;
  const seconds = Math.floor(elapsedMs / 1000);
  const reason = `${deadline} (${limitSeconds}) exceeded: the job ${WHAT[deadline]} for ${seconds} seconds`;
  return { deadline, reason, elapsedMs } satisfies DeadlineExceeded;
}

/**
 * The first deadline the job has run past, or null. A deadline is exceeded once strictly more than its seconds
 * have elapsed. activeDeadlineSeconds counts from `startTime` (null: not started) and is checked first;
 * startupDeadlineSeconds and faultDeadlineSeconds count from `phaseSince`, which the caller sets when the job
 * enters the starting stretch (kept across Created → PodsRunning) or the Fault state.
 */
export function checkDeadlines(input: {
  runPolicy?: RunPolicyInput;
  phase: DeadlinePhase;
  /** Epoch ms at which the current phase began. */
  phaseSince: number;
  /** Epoch ms of status.startTime, or null when the job has not started. */
  startTime: number | null;
  now: number;
}): DeadlineExceeded | null {
  const { runPolicy, now } = input;
  const clocks = clocksFor(input.phase);
  const active =
    clocks.active && input.startTime !== null
      ? exceeded("activeDeadlineSeconds", runPolicy?.activeDeadlineSeconds, now - input.startTime)
      : null;
  if (active !== null || clocks.phaseDeadline === null) return active;
  return exceeded(clocks.phaseDeadline, runPolicy?.[clocks.phaseDeadline], now - input.phaseSince);
}
