import { type CompiledPattern, compilePattern } from "@/server/domain/log-rules/pattern";
import { parsePythonFloat } from "@/server/domain/log-rules/python-float";
import { parsePolicyYaml } from "../policy-yaml";
import type { PolicyTemplate } from "../types";
import type { CorpusKind, CorpusLine } from "./corpus";

/**
 * Scores a shipped template on the corpus (test support). Templates whose rule fires on a line (fault on
 * match, or the progress pattern of the hang and start cut-off rules) are scored by line: found = lines of
 * its kind it matches, missed = the rest of them, false fires = harmless or progress lines it matches
 * (firing on a line of another fault kind is listed apart as a cross-fire: the line is a fault either way).
 * Templates that read a value (loss spike, low throughput) are scored by the value they read: found = the
 * value a person read off the line, wrong = any other value or a value from a line with none.
 */

export type TemplateScore = {
  template: string;
  /** What is measured, for the printed table. */
  measuredOn: string;
  positives: number;
  found: number;
  missed: CorpusLine[];
  falseFires: CorpusLine[];
  crossFires: CorpusLine[];
  /** Value templates: lines left out on purpose (a number Python's float() cannot read, e.g. `7,282`). */
  leftOut: CorpusLine[];
  precision: number;
  recall: number;
};

type LineSpec = { by: "line"; kinds: readonly CorpusKind[]; label: string };
type ValueSpec = {
  by: "value";
  expected: (line: CorpusLine) => number | undefined;
  /** Lines left out of the score. */
  unscored?: (line: CorpusLine) => boolean;
  label: string;
};

const lossOf = (line: CorpusLine): number | undefined => {
  if (line.loss === undefined) return undefined;
  if (typeof line.loss === "number") return line.loss;
  return { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, "-inf": Number.NEGATIVE_INFINITY }[line.loss];
};

/** The loss spike rule reads a step's loss from step 100 on (its warm-up guard). */
export const LOSS_SPIKE_FROM_STEP = 100;

const SPECS: Record<string, LineSpec | ValueSpec> = {
  hang: { by: "line", kinds: ["progress"], label: "progress lines" },
  "start-cut-off": { by: "line", kinds: ["progress"], label: "progress lines" },
  "nan-loss": { by: "line", kinds: ["nan"], label: "NaN / divergence lines" },
  "cuda-oom": { by: "line", kinds: ["cuda-oom"], label: "GPU out-of-memory lines" },
  "nccl-timeout": { by: "line", kinds: ["nccl-timeout"], label: "NCCL timeout lines" },
  "nccl-failure": { by: "line", kinds: ["nccl-failure"], label: "NCCL transport / CUDA failure lines" },
  "gpu-hardware": { by: "line", kinds: ["gpu-hardware"], label: "GPU hardware lines (Xid catalog)" },
  "checkpoint-overdue": { by: "line", kinds: ["checkpoint"], label: "checkpoint-saved lines" },
  // A loss whose step nobody could read off the line (a Trainer dict) is not scored: the warm-up guard
  // cannot be judged there.
  "loss-spike": {
    by: "value",
    expected: (line) =>
      line.step !== undefined && line.step >= LOSS_SPIKE_FROM_STEP ? lossOf(line) : undefined,
    unscored: (line) => line.loss !== undefined && line.step === undefined,
    label: `losses of steps >= ${LOSS_SPIKE_FROM_STEP}`,
  },
  "low-throughput": { by: "value", expected: (line) => line.tokensPerSecond, label: "tokens/s figures" },
};

const isPositive = (line: CorpusLine, kinds: readonly CorpusKind[]) =>
  kinds.includes(line.kind) || (kinds.includes("progress") && line.progress === true);

/** The template's rules' patterns; a template with several rules fires or reads where any of them does. */
function templatePattern(template: PolicyTemplate): CompiledPattern {
  const parsed = parsePolicyYaml(template.yaml);
  const rules = parsed.ok ? (parsed.runPolicy.logMonitoringConfiguration ?? []) : [];
  const patterns = rules.map((rule) => compilePattern(rule.logPattern));
  const compiled = patterns.flatMap((pattern) => (pattern.ok ? [pattern.pattern] : []));
  const [first] = compiled;
  if (first === undefined || compiled.length !== patterns.length)
    throw new Error(`template ${template.id}: no pattern to measure`);
  return {
    ...first,
    match: (line) => {
      for (const pattern of compiled) {
        const match = pattern.match(line);
        if (match !== null) return match;
      }
      return null;
    },
  };
}

const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

function emptyScore(template: string, measuredOn: string): TemplateScore {
  const empty = { missed: [], falseFires: [], crossFires: [], leftOut: [] };
  return { template, measuredOn, positives: 0, found: 0, ...empty, precision: 1, recall: 1 };
}

type Verdict = "found" | "missed" | "falseFire" | "crossFire" | "leftOut" | "none";
type Buckets = Record<Verdict, CorpusLine[]>;

function lineVerdict(fires: boolean, line: CorpusLine, spec: LineSpec): Verdict {
  if (isPositive(line, spec.kinds)) return fires ? "found" : "missed";
  if (!fires) return "none";
  const progressRule = spec.kinds.includes("progress");
  return progressRule || line.kind === "harmless" || line.kind === "progress" ? "falseFire" : "crossFire";
}

function sortLines(lines: readonly CorpusLine[], verdict: (line: CorpusLine) => Verdict): Buckets {
  const buckets: Buckets = { found: [], missed: [], falseFire: [], crossFire: [], leftOut: [], none: [] };
  for (const line of lines) buckets[verdict(line)].push(line);
  return buckets;
}

function scoreOf(id: string, label: string, b: Buckets): TemplateScore {
  const found = b.found.length;
  const positives = found + b.missed.length + b.leftOut.length;
  return {
    ...emptyScore(id, label),
    positives,
    found,
    missed: b.missed,
    falseFires: b.falseFire,
    crossFires: b.crossFire,
    leftOut: b.leftOut,
    precision: ratio(found, found + b.falseFire.length),
    recall: ratio(found + b.leftOut.length, positives),
  };
}

function scoreLines(pattern: CompiledPattern, spec: LineSpec, lines: readonly CorpusLine[], id: string) {
  const buckets = sortLines(lines, (line) => lineVerdict(pattern.match(line.text) !== null, line, spec));
  return scoreOf(id, spec.label, buckets);
}

const sameValue = (a: number, b: number) =>
  (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 1e-9 * Math.abs(b);

/** A figure printed with thousands separators (`7,282`, `10,050`), which float() cannot read. */
const SEPARATED = /\b\d{1,3}(?:,\d{3})+\b/;

function valueVerdict(read: number | null, expected: number | undefined, text: string): Verdict {
  if (expected === undefined) return read === null ? "none" : "falseFire";
  if (read !== null) return sameValue(read, expected) ? "found" : "falseFire";
  return expected >= 1000 && SEPARATED.test(text) ? "leftOut" : "missed";
}

function scoreValues(pattern: CompiledPattern, spec: ValueSpec, lines: readonly CorpusLine[], id: string) {
  const buckets = sortLines(lines, (line) => {
    if (spec.unscored?.(line) === true) return "none";
    const match = pattern.match(line.text);
    const read = match === null ? null : parsePythonFloat(match.groups[0]);
    return valueVerdict(read, spec.expected(line), line.text);
  });
  return scoreOf(id, spec.label, buckets);
}

export function scoreTemplate(template: PolicyTemplate, lines: readonly CorpusLine[]): TemplateScore {
  const spec = SPECS[template.id];
  if (spec === undefined) throw new Error(`template ${template.id}: no corpus measure`);
  const pattern = templatePattern(template);
  return spec.by === "line"
    ? scoreLines(pattern, spec, lines, template.id)
    : scoreValues(pattern, spec, lines, template.id);
}

const percent = (value: number) => value.toFixed(2);

/** The table log-corpus.test.ts prints (and docs/policies.md shows). */
export function scoreTable(scores: readonly TemplateScore[]): string {
  const rows = scores.map((s) => {
    const leftOut = s.leftOut.length === 0 ? "" : ` (+${s.leftOut.length} left out)`;
    return `| ${s.template} | ${s.measuredOn} | ${s.positives} | ${s.found}${leftOut} | ${s.missed.length} | ${s.falseFires.length} | ${s.crossFires.length} | ${percent(s.precision)} | ${percent(s.recall)} |`;
  });
  return [
    "| template | measured on | lines | found | missed | false fires | cross-fires | precision | recall |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
