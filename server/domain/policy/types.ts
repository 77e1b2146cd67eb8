import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import type { LogState } from "@/server/domain/log-rules/evaluator";
import type { FaultLogState } from "@/server/domain/log-rules/fault-reason";

/**
 * The policy editor's domain (issue 12): a policy is a HyperPod `spec.runPolicy` written as YAML (restart
 * policy, retry counts, deadlines, cleanPodPolicy and the log rules), checked by the operator's own zod
 * schema. Pure: the editor runs it in the browser as you type, the console again on the server.
 */

export type PolicyParse =
  | { ok: true; runPolicy: RunPolicy; warnings: JobSpecError[]; notes: string[] }
  | { ok: false; errors: JobSpecError[] };

/** Hover and completion docs of one runPolicy field. */
export type FieldDoc = { summary: string; detail?: string; example?: string };

export type PolicyTemplate = {
  id: string;
  name: string;
  summary: string;
  yaml: string;
  /** Log lines the template's rules fire on, and lines they stay quiet on (its tests run both). */
  samples: { fires: string[]; quiet: string[] };
};

export type DiffLine = {
  kind: "same" | "added" | "removed";
  text: string;
  /** 1-based line in the older text (null: added). */
  fromLine: number | null;
  /** 1-based line in the newer text (null: removed). */
  toLine: number | null;
};

/** A restart the job already had (its timeline), for what the restart policy would do next. */
export type DryRunRestart = { at: number; type: "PLR" | "POD_REPLACEMENT" | "JLR" };

export type DryRunInput = {
  runPolicy: RunPolicy;
  /** Pasted log text, or a rank's recent output; lines may start with a timestamp. */
  logText: string;
  /** Spacing of lines without a timestamp (default 1000 ms). */
  intervalMs?: number;
  /** The job's restarts so far (oldest first or any order). */
  history?: readonly DryRunRestart[];
  /** Epoch ms of the first line when no line has a timestamp (default: 2026-01-01T00:00:00Z). */
  startAt?: number;
  /**
   * A live rank's output: when each line arrived (epoch ms, index-aligned with the lines of `logText`; null
   * where unknown). Arrival times win over timestamps printed in the lines, as the agent judges by arrival.
   */
  arrivals?: readonly (number | null)[];
  /**
   * When the rank's rules started (epoch ms: its attempt's start, where the agent starts its evaluators).
   * The start cut-off counts from here; unset: from the first line.
   */
  rulesStartedAt?: number;
  /**
   * When the output was read (epoch ms). The run stops here instead of playing windows out past the last
   * line: a live rank's output has not ended, so a window still open is a deadline, not a fault.
   */
  endAt?: number;
};

export type DryRunMatch = {
  lineNumber: number;
  at: number;
  text: string;
  /** The value group 1 captured, for a metric rule (null: none, or not a number). */
  value: number | null;
};

export type DryRunTransition = { at: number; lineNumber: number | null; state: LogState };

export type DryRunRule = {
  name: string;
  explanation: string;
  /** The first MAX_MATCHES_SHOWN matches; `matchCount` counts them all. */
  matches: DryRunMatch[];
  matchCount: number;
  transitions: DryRunTransition[];
  finalState: LogState;
};

export type DryRunFault = {
  rule: string;
  state: FaultLogState;
  at: number;
  /** The line that made it fire (null: a window that ran out with no line). */
  lineNumber: number | null;
  /** HyperPod's reason string (e.g. `LogHang_hang`) and message, as the operator records them. */
  reason: string;
  message: string;
};

export type DryRunNextAction = {
  action: "in-place restart" | "pod replacement" | "full job restart" | "fail";
  reason: string;
};

export type DryRunResult = {
  /** Simulated time (epoch ms) of the first line and of the end of the run (after the last window). */
  start: number;
  end: number;
  /** Simulated time of the last line (after it the clock only ticks). */
  outputEndedAt: number;
  lines: number;
  /** How many lines carried a timestamp that was read. */
  timestamped: number;
  rules: DryRunRule[];
  fault: DryRunFault | null;
  nextAction: DryRunNextAction | null;
  /** With `endAt`: windows still open at the end, and when each fires if no matching line comes. */
  deadlines: DryRunDeadline[];
  notes: string[];
};

export type DryRunDeadline = { rule: string; state: "HANGING"; at: number };
