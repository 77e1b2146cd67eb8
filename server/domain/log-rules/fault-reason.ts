import type { LogState } from "./evaluator";

/**
 * The agent's fault `reason` and `message` for a rank whose log rules went bad. The message embeds
 * Python's repr of a `{rule: line}` dict, e.g. `{'JobHang': 'Epoch 3 loss=1.2\n'}`, with `None` for a rule
 * that never matched; the reason names the first rule of that dict. The HyperPod agent keeps each line as
 * Python's readline() gives it, terminator and all, so its message shows the line ending in `\n`; our lines
 * are kept without it (a rule's pattern sees the bare line), and the message puts it back, so both agents'
 * messages are the same text (server/agent/template-conformance.integration-test.ts runs both). The one
 * difference left: a last line a rank never ended (it exited mid-line) shows `\n` here, not there.
 */

export type FaultLogState = Extract<LogState, "HANGING" | "SLOW" | "FAULTED">;

/** Rules in config order, each with its last matched line (null: never matched). */
export type RuleLines = readonly { readonly rule: string; readonly line: string | null }[];

export type LogFault = { reason: string; message: string };

const REASON_PREFIX: Record<FaultLogState, string> = {
  HANGING: "LogHang_",
  SLOW: "LogSlow_",
  FAULTED: "LogFault_",
};

/** Every reason family, including the older agents' `LogStateHanging_` / `LogStateSlow_`. */
const KNOWN_REASON_PREFIXES: readonly (readonly [string, FaultLogState])[] = [
  ["LogHang_", "HANGING"],
  ["LogSlow_", "SLOW"],
  ["LogFault_", "FAULTED"],
  ["LogStateHanging_", "HANGING"],
  ["LogStateSlow_", "SLOW"],
];

const MESSAGE_PREFIX: Record<FaultLogState, string> = {
  HANGING:
    "The job is hanging (not receiving required logs) on the following log monitoring rules and corresponding last matched log lines: ",
  SLOW: "The job is slowed (logs outside of acceptable thresholds) on the following log monitoring rules and corresponding log lines: ",
  FAULTED:
    "The job detected a fault indicating log message for the following log monitoring rules and corresponding log lines: ",
};

const NAMED_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeChar(ch: string, quote: string): string {
  const named = NAMED_ESCAPES[ch];
  if (named !== undefined) return named;
  if (ch === quote) return `\\${ch}`;
  if (ch === " " || !/[\p{C}\p{Z}]/u.test(ch)) return ch;
  const code = ch.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

/** Python `repr(str)`: single quotes unless the text holds ' and no ". Non-printables are escaped. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = "";
  for (const ch of text) body += escapeChar(ch, quote);
  return `${quote}${body}${quote}`;
}

export function pythonDictRepr(rules: RuleLines): string {
  const items = rules.map(
    ({ rule, line }) =>
      `${pythonStringRepr(rule)}: ${line === null ? "None" : pythonStringRepr(`${line}\n`)}`,
  );
  return `{${items.join(", ")}}`;
}

export function logFaultReason(state: FaultLogState, rules: RuleLines): string {
  return `${REASON_PREFIX[state]}${rules[0]?.rule ?? ""}`;
}

export function logFaultMessage(state: FaultLogState, rules: RuleLines): string {
  return `${MESSAGE_PREFIX[state]}${pythonDictRepr(rules)}`;
}

export function logFault(state: FaultLogState, rules: RuleLines): LogFault {
  return { reason: logFaultReason(state, rules), message: logFaultMessage(state, rules) };
}

/** Reads `LogHang_<rule>`, `LogSlow_<rule>`, `LogFault_<rule>` and the older `LogStateHanging_<rule>` family. */
export function parseLogFaultReason(reason: string): { state: FaultLogState; rule: string } | null {
  const hit = KNOWN_REASON_PREFIXES.find(
    ([prefix]) => reason.startsWith(prefix) && reason.length > prefix.length,
  );
  return hit ? { state: hit[1], rule: reason.slice(hit[0].length) } : null;
}
