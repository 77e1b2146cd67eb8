import { parseDocument } from "yaml";
import type { z } from "zod";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import {
  type NodeAction,
  type NodeSignalRule,
  type NodeSignalTable,
  nodeSignalTableSchema,
} from "@/server/domain/node-health/signal-table.schema";

/**
 * Checking a node-signal table that someone wrote (the console's editor, the `rebound-node-signals`
 * ConfigMap): the schema of server/domain/node-health plus HyperPod's label keeping its meaning. Pure (no
 * database, no cluster, no Node built-ins), so the editor, the console's server and the operator check
 * alike. Every refusal names the row (its index and id) and the field.
 */

export type TableCheck = { ok: true; table: NodeSignalTable } | { ok: false; message: string };

/** HyperPod's node-health label: its row is the operator's behaviour before the table, and stays so. */
export const HYPERPOD_ROW_ID = "hyperpod-node-health";
const HYPERPOD_ROW = DEFAULT_NODE_SIGNALS.find((rule) => rule.id === HYPERPOD_ROW_ID);
const HYPERPOD_LABEL = HYPERPOD_ROW?.read.kind === "label" ? HYPERPOD_ROW.read.key : "";

/** The shipped cordon row: added with the chosen action when the cordon toggle finds none. */
const DEFAULT_CORDON_ROW = DEFAULT_NODE_SIGNALS.find((rule) => rule.read.kind === "cordon");

/** At most this many rows (a bound on what each node's judgement costs). */
export const MAX_NODE_SIGNAL_ROWS = 200;
/** At most this many characters of table text. */
export const MAX_NODE_SIGNAL_TEXT = 200_000;

/** JSON with keys sorted: equal for equal rows whatever order their keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    field && typeof field === "object" && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => a.localeCompare(b)))
      : field,
  );
}

function rowName(rows: unknown, index: number): string {
  const row = Array.isArray(rows) ? (rows[index] as { id?: unknown } | undefined) : undefined;
  return typeof row?.id === "string" ? `rules[${index}] (${row.id})` : `rules[${index}]`;
}

/** `rules[5] (kubernetes-cordon).action: …` for each issue, joined. */
function describeIssues(rows: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const [index, ...rest] = issue.path;
      if (typeof index !== "number") return `rules: ${issue.message}`;
      const field = rest.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("");
      return `${rowName(rows, index)}${field}: ${issue.message}`;
    })
    .join("; ");
}

/** The HyperPod row exactly as shipped, and no other row reading its label. */
function hyperpodProblem(table: NodeSignalTable): string | null {
  const index = table.findIndex((rule) => rule.id === HYPERPOD_ROW_ID);
  if (index < 0)
    return `rules: the ${HYPERPOD_ROW_ID} row is missing: HyperPod's ${HYPERPOD_LABEL} label keeps its meaning, keep the row as shipped`;
  if (canonical(table[index]) !== canonical(HYPERPOD_ROW))
    return `rules[${index}] (${HYPERPOD_ROW_ID}): HyperPod's ${HYPERPOD_LABEL} label keeps its meaning, the row cannot be changed`;
  const other = table.findIndex(
    (rule, at) => at !== index && rule.read.kind === "label" && rule.read.key === HYPERPOD_LABEL,
  );
  if (other >= 0)
    return `rules[${other}] (${table[other]?.id}).read.key: ${HYPERPOD_LABEL} is read by the ${HYPERPOD_ROW_ID} row only`;
  return null;
}

/** A table given as data (JSON already parsed). */
export function checkNodeSignalTable(rows: unknown): TableCheck {
  if (Array.isArray(rows) && rows.length > MAX_NODE_SIGNAL_ROWS)
    return { ok: false, message: `rules: at most ${MAX_NODE_SIGNAL_ROWS} rows, got ${rows.length}` };
  const parsed = nodeSignalTableSchema.safeParse(rows);
  if (!parsed.success) return { ok: false, message: describeIssues(rows, parsed.error.issues) };
  const problem = hyperpodProblem(parsed.data);
  return problem ? { ok: false, message: problem } : { ok: true, table: parsed.data };
}

/** Text as YAML (JSON is YAML too): a syntax error names its line, then the table is checked. */
export function parseNodeSignalText(
  text: string,
): { ok: true; rows: unknown } | { ok: false; message: string } {
  if (text.length > MAX_NODE_SIGNAL_TEXT)
    return { ok: false, message: `rules: at most ${MAX_NODE_SIGNAL_TEXT} characters, got ${text.length}` };
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    return {
      ok: false,
      message: `rules: not valid YAML${line ? ` at line ${line}` : ""}: ${error.message.split("\n")[0]}`,
    };
  }
  try {
    return { ok: true, rows: document.toJS({ maxAliasCount: 50 }) };
  } catch (cause) {
    return { ok: false, message: `rules: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
}

export function checkNodeSignalText(text: string): TableCheck {
  const parsed = parseNodeSignalText(text);
  return parsed.ok ? checkNodeSignalTable(parsed.rows) : parsed;
}

/** Whether a cordon alone moves running pods: true when every cordon row replaces them at once. */
export function cordonMovesPods(table: NodeSignalTable): boolean {
  const rows = table.filter((rule) => rule.read.kind === "cordon");
  return rows.length > 0 && rows.every((rule) => rule.action === "replace-now");
}

/**
 * The table with the cordon rows' action set: replace-now (a cordon moves running pods now) or avoid (new
 * pods keep off, running ones stay: Kubernetes' own meaning). No cordon row: the shipped one is added.
 */
export function withCordonAction(table: NodeSignalTable, movesPods: boolean): NodeSignalTable {
  const action: NodeAction = movesPods ? "replace-now" : "avoid";
  const set = (rule: NodeSignalRule): NodeSignalRule => {
    const { graceSeconds: _grace, ...rest } = rule;
    return { ...rest, action };
  };
  const hasCordon = table.some((rule) => rule.read.kind === "cordon");
  if (hasCordon) return table.map((rule) => (rule.read.kind === "cordon" ? set(rule) : rule));
  return DEFAULT_CORDON_ROW ? [...table, set(DEFAULT_CORDON_ROW)] : table;
}

/**
 * The ConfigMap's rows over the stored table: a row replaces the stored row of the same id, a new id is
 * added at the end (rows are removed in the console; a row with meaning healthy and action none matches
 * and changes nothing). The result is checked as a whole.
 */
export function overlayNodeSignals(base: NodeSignalTable, overlay: unknown): TableCheck {
  if (!Array.isArray(overlay))
    return { ok: false, message: "rules: expected a list of rows (the same rows as the console's table)" };
  const ids = new Set(base.map((rule) => rule.id));
  const byId = new Map<unknown, unknown>(overlay.map((row) => [(row as { id?: unknown } | null)?.id, row]));
  const merged: unknown[] = base.map((rule) => byId.get(rule.id) ?? rule);
  for (const row of overlay) if (!ids.has((row as { id?: unknown } | null)?.id as string)) merged.push(row);
  // Refusals name rows by their place in the merged table and by id (the ConfigMap row of that id).
  return checkNodeSignalTable(merged);
}
