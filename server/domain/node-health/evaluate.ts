import {
  type NodeAction,
  type NodeMeaning,
  type NodeSignalRule,
  type NodeSignalSource,
  type NodeSignalTable,
  type SignalRead,
  SOURCE_NAMES,
} from "./signal-table.schema";

/**
 * A node judged against the signal table (signal-table.schema.ts). Rows are read in order; one fact of the
 * node (a label, a condition, a taint, the cordon, a resource's allocatable, a metric's series) is decided
 * by the first row that matches it, so a row placed earlier overrides a later, wider one. The verdict's action is the most
 * severe of its signals'; its meaning, reason and source are those of the most severe signal (the earlier
 * row on a tie). Pure: the caller passes the time and the previous verdict, whose signals keep their start.
 */

export type NodeFacts = {
  labels: Readonly<Record<string, string>>;
  conditions: readonly { type: string; status: string; reason?: string; message?: string }[];
  taints: readonly { key: string; value?: string; effect: string }[];
  unschedulable: boolean;
  capacity: Readonly<Record<string, string>>;
  allocatable: Readonly<Record<string, string>>;
  /** The node's metric series (e.g. the DCGM exporter's, through Prometheus), when a metrics source runs. */
  metrics?: readonly NodeMetric[];
};

/** One series of a node: `series` names it among the metric's (`gpu=0`), stable while its value changes. */
export type NodeMetric = {
  name: string;
  series: string;
  labels: Readonly<Record<string, string>>;
  value: number;
};

export type NodeSignal = {
  rule: string;
  /**
   * The fact read: `condition:GpuMemWatch`, `label:<key>`, `taint:<key>`, `cordon`, `allocatable:<name>`,
   * `metric:<name>{<series>}`.
   */
  fact: string;
  source: NodeSignalSource;
  meaning: Exclude<NodeMeaning, "healthy">;
  action: Exclude<NodeAction, "none">;
  graceSeconds: number;
  /** For people: "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 …". */
  reason: string;
  /** Epoch ms when this row first matched this fact (as far as the caller's previous verdicts go). */
  since: number;
};

export type NodeVerdict = {
  meaning: NodeMeaning;
  action: NodeAction;
  /** Most severe first. */
  signals: readonly NodeSignal[];
  reason: string | null;
  source: NodeSignalSource | null;
  /** Epoch ms from which the job pods on the node are to be replaced; null: they stay. */
  replaceAt: number | null;
};

export const HEALTHY_VERDICT: NodeVerdict = {
  meaning: "healthy",
  action: "none",
  signals: [],
  reason: null,
  source: null,
  replaceAt: null,
};

const SEVERITY: Record<NodeAction, number> = {
  none: 0,
  avoid: 1,
  "replace-after-grace": 2,
  "replace-now": 3,
};
const MAX_MESSAGE = 300;

const globs = new Map<string, RegExp>();
function globMatches(glob: string, value: string): boolean {
  let pattern = globs.get(glob);
  if (!pattern) {
    const body = glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*");
    pattern = new RegExp(`^${body}$`);
    globs.set(glob, pattern);
  }
  return pattern.test(value);
}

function tidy(message: string | undefined): string {
  const text = (message ?? "")
    .replace(/\s+/g, " ")
    .replace(/[;\s]+$/, "")
    .trim();
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}

type Match = { fact: string; detail: string };

function conditionMatches(read: Extract<SignalRead, { kind: "condition" }>, facts: NodeFacts): Match[] {
  const found = facts.conditions.filter((condition) => globMatches(read.type, condition.type));
  if (found.length === 0 && read.orAbsent)
    return [{ fact: `condition:${read.type}`, detail: `no ${read.type} condition` }];
  return found
    .filter(
      (condition) =>
        (read.status as readonly string[]).includes(condition.status) &&
        (read.reason === undefined || globMatches(read.reason, condition.reason ?? "")),
    )
    .map((condition) => {
      const head =
        condition.status === "True"
          ? condition.type
          : `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ""}`;
      const message = tidy(condition.message);
      return { fact: `condition:${condition.type}`, detail: message ? `${head} — ${message}` : head };
    });
}

function labelMatches(read: Extract<SignalRead, { kind: "label" }>, facts: NodeFacts): Match[] {
  const value = facts.labels[read.key];
  if (value === undefined || !value.startsWith(read.valuePrefix ?? "") || read.except?.includes(value))
    return [];
  return [{ fact: `label:${read.key}`, detail: `${read.key}=${value}` }];
}

function allocatableMatches(
  read: Extract<SignalRead, { kind: "allocatable-below-capacity" }>,
  facts: NodeFacts,
) {
  const capacity = Number(facts.capacity[read.resource]);
  const allocatable = Number(facts.allocatable[read.resource] ?? capacity);
  if (!Number.isFinite(capacity) || !Number.isFinite(allocatable) || allocatable >= capacity) return [];
  return [
    {
      fact: `allocatable:${read.resource}`,
      detail: `${allocatable} of ${capacity} ${read.resource} allocatable`,
    },
  ];
}

/** What a metric's series says to people: the DCGM exporter's `err_msg` for an Xid, its health error code. */
function metricDetail(metric: NodeMetric): string {
  const note = metric.labels.err_msg || metric.labels.health_error_code;
  const where = metric.series ? ` (${metric.series.replace(/,/g, ", ")})` : "";
  return `${metric.name}=${metric.value}${where}${note ? ` — ${tidy(note)}` : ""}`;
}

function metricMatches(read: Extract<SignalRead, { kind: "metric" }>, facts: NodeFacts): Match[] {
  const labels = Object.entries(read.labels ?? {});
  return (facts.metrics ?? [])
    .filter(
      (metric) =>
        metric.name === read.name &&
        metric.value !== 0 &&
        (read.values ? read.values.includes(metric.value) : metric.value >= (read.atLeast ?? 0)) &&
        labels.every(([key, glob]) => globMatches(glob, metric.labels[key] ?? "")),
    )
    .map((metric) => ({ fact: `metric:${metric.name}{${metric.series}}`, detail: metricDetail(metric) }));
}

function matches(read: SignalRead, facts: NodeFacts): Match[] {
  switch (read.kind) {
    case "label":
      return labelMatches(read, facts);
    case "condition":
      return conditionMatches(read, facts);
    case "taint":
      return facts.taints
        .filter((taint) => taint.key === read.key && (!read.effect || taint.effect === read.effect))
        .slice(0, 1)
        .map((taint) => ({ fact: `taint:${taint.key}`, detail: `taint ${taint.key}:${taint.effect}` }));
    case "cordon":
      return facts.unschedulable ? [{ fact: "cordon", detail: "cordoned (spec.unschedulable)" }] : [];
    case "allocatable-below-capacity":
      return allocatableMatches(read, facts);
    case "metric":
      return metricMatches(read, facts);
    default:
      return read satisfies never;
  }
}

function signalOf(rule: NodeSignalRule, match: Match, since: number): NodeSignal | null {
  if (rule.meaning === "healthy" || rule.action === "none") return null;
  return {
    rule: rule.id,
    fact: match.fact,
    source: rule.source,
    meaning: rule.meaning,
    action: rule.action,
    graceSeconds: rule.graceSeconds ?? 0,
    reason: `${SOURCE_NAMES[rule.source]}: ${match.detail}`,
    since,
  };
}

const dueAt = (signal: NodeSignal): number | null => {
  if (signal.action === "replace-now") return signal.since;
  if (signal.action === "replace-after-grace") return signal.since + signal.graceSeconds * 1000;
  return null;
};

/** Each fact's first matching row, in table order (healthy rows claim their fact and give no signal). */
function signalsOf(
  facts: NodeFacts,
  table: NodeSignalTable,
  at: { now: number; previous?: NodeVerdict | null },
) {
  const started = new Map(
    at.previous?.signals.map((signal) => [`${signal.rule}|${signal.fact}`, signal.since]),
  );
  const decided = new Set<string>();
  const signals: NodeSignal[] = [];
  for (const rule of table) {
    const fresh = matches(rule.read, facts).filter((match) => !decided.has(match.fact));
    for (const match of fresh) {
      decided.add(match.fact);
      const signal = signalOf(rule, match, started.get(`${rule.id}|${match.fact}`) ?? at.now);
      if (signal) signals.push(signal);
    }
  }
  return signals;
}

export function evaluateNode(
  facts: NodeFacts,
  table: NodeSignalTable,
  at: { now: number; previous?: NodeVerdict | null },
): NodeVerdict {
  const signals = signalsOf(facts, table, at);
  if (signals.length === 0) return HEALTHY_VERDICT;
  // A stable sort: the earlier row first among equally severe signals.
  signals.sort((a, b) => SEVERITY[b.action] - SEVERITY[a.action]);
  const [first] = signals as [NodeSignal, ...NodeSignal[]];
  const due = signals.map(dueAt).filter((time): time is number => time !== null);
  return {
    meaning: first.meaning,
    action: first.action,
    signals,
    reason: first.reason,
    source: first.source,
    replaceAt: due.length > 0 ? Math.min(...due) : null,
  };
}

/** What makes a verdict differ for the operator: the signals present (not their wording). */
export const verdictFingerprint = (verdict: NodeVerdict): string =>
  verdict.signals.map((signal) => `${signal.rule}|${signal.fact}`).join(",");
