import { type Document, isScalar, LineCounter, parseAllDocuments, stringify, visit } from "yaml";
import { expandedSize } from "@/server/domain/job-spec/expanded-size";
import { JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import {
  formatPath,
  issuesToErrors,
  type JobSpecError,
  type Locator,
} from "@/server/domain/job-spec/job-spec-errors";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { type RunPolicy, runPolicySchema } from "@/server/domain/job-spec/run-policy.schema";
import { createYamlLocator } from "@/server/domain/job-spec/yaml-locate";
import { logRuleWarnings } from "@/server/domain/log-rules/rule-warnings";
import { withPatternAdvice } from "./pattern-advice";
import type { PolicyParse } from "./types";

/**
 * A policy's YAML → the runPolicy it sets, or every problem with its field path and 1-based line and column.
 * Accepted: a runPolicy mapping (`logMonitoringConfiguration:` alone is one), an empty document (HyperPod's
 * defaults), or a whole HyperPodPyTorchJob pasted in (its spec.runPolicy is taken, with a note). Refused
 * before any parsing: more than MAX_POLICY_YAML_BYTES; while reading: aliases that expand it past that
 * size (alias bombs). The editor is stricter than job submission in one place: rule names must be unique
 * (hyperpodrun runs two rules of one name, and its reports cannot tell them apart; a submitted job keeps
 * HyperPod's acceptance). A pattern the linear-time engine cannot run is refused with what to write instead.
 */
export const MAX_POLICY_YAML_BYTES = 64 * 1024;
const MAX_ALIAS_COUNT = 100;

const failure = (message: string, at?: { line: number; column: number }): PolicyParse => ({
  ok: false,
  errors: [{ path: "", ...at, message }],
});

const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KiB`;

function firstAliasAt(doc: Document): number | null {
  let at: number | null = null;
  visit(doc, {
    Alias(_key, node) {
      at = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return at;
}

function isJob(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === JOB_KIND;
}

/** Repeated rule names, each at its name. */
function repeatedNames(
  policy: RunPolicy,
  locate: Locator,
  prefix: readonly (string | number)[],
): JobSpecError[] {
  const first = new Map<string, number>();
  const errors: JobSpecError[] = [];
  (policy.logMonitoringConfiguration ?? []).forEach((rule, index) => {
    const earlier = first.get(rule.name);
    if (earlier === undefined) {
      first.set(rule.name, index);
      return;
    }
    const path = [...prefix, "logMonitoringConfiguration", index, "name"];
    errors.push({
      path: formatPath(path),
      ...locate(path, "value"),
      message: `"${rule.name}" repeats rule ${earlier + 1}'s name; rule names must be unique (a fault names its rule)`,
    });
  });
  return errors;
}

function fromJob(text: string, locate: Locator): PolicyParse {
  const parsed = parseJobYaml(text);
  if (!parsed.ok) return { ok: false, errors: withPatternAdvice(parsed.errors) };
  const runPolicy = parsed.job.spec.runPolicy ?? runPolicySchema.parse({});
  const repeated = repeatedNames(runPolicy, locate, ["spec", "runPolicy"]);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const notes = [`a whole ${JOB_KIND} was pasted: its spec.runPolicy is the policy, the rest is ignored`];
  return { ok: true, runPolicy, warnings: parsed.warnings, notes };
}

function fromRunPolicy(value: unknown, locate: Locator): PolicyParse {
  const result = runPolicySchema.safeParse(value ?? {}, { reportInput: true });
  if (!result.success) {
    const errors = issuesToErrors(result.error.issues, { schema: runPolicySchema, locate });
    return { ok: false, errors: withPatternAdvice(errors) };
  }
  const runPolicy = result.data;
  const repeated = repeatedNames(runPolicy, locate, []);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const raw = (value as { logMonitoringConfiguration?: unknown } | null)?.logMonitoringConfiguration;
  const warnings = logRuleWarnings(
    Array.isArray(raw) ? raw : [],
    runPolicy.logMonitoringConfiguration ?? [],
  ).map((warning) => {
    const path = ["logMonitoringConfiguration", ...warning.path];
    return { path: formatPath(path), ...locate(path, warning.target), message: warning.message };
  });
  return { ok: true, runPolicy, warnings, notes: [] };
}

type Read = { ok: true; doc: Document | null; lineCounter: LineCounter } | { ok: false; result: PolicyParse };

/** The one YAML document of the text (null: empty), or why it cannot be read. */
function readDocument(text: string): Read {
  const lineCounter = new LineCounter();
  const docs = Array.from(parseAllDocuments(text, { lineCounter, prettyErrors: false }));
  const syntax = docs.flatMap((doc) =>
    doc.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { path: "", line, column: col, message: `YAML syntax error: ${error.message}` };
    }),
  );
  if (syntax.length > 0) return { ok: false, result: { ok: false, errors: syntax } };
  const filled = docs.filter(
    (doc) => !(doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)),
  );
  if (filled.length > 1) {
    const { line, col } = lineCounter.linePos(filled[1]?.range[0] ?? 0);
    const message = "found more than one YAML document; a policy is one runPolicy mapping";
    return { ok: false, result: failure(message, { line, column: col }) };
  }
  return { ok: true, doc: filled[0] ?? null, lineCounter };
}

/** The document as JS, or why not (an alias count past the limit, aliases expanding past the size). */
function toValue(
  doc: Document,
  lineCounter: LineCounter,
): { ok: true; value: unknown } | { ok: false; result: PolicyParse } {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return {
      ok: false,
      result: failure(`cannot read the YAML: ${error instanceof Error ? error.message : String(error)}`),
    };
  }
  const aliasAt = firstAliasAt(doc);
  if (aliasAt === null || expandedSize(value, MAX_POLICY_YAML_BYTES) <= MAX_POLICY_YAML_BYTES)
    return { ok: true, value };
  const { line, col } = lineCounter.linePos(aliasAt);
  const message = `YAML aliases (*name) expand the policy past ${sizeText(MAX_POLICY_YAML_BYTES)}; write the repeated values out once each`;
  return { ok: false, result: failure(message, { line, column: col }) };
}

export function parsePolicyYaml(text: string): PolicyParse {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_POLICY_YAML_BYTES)
    return failure(
      `the policy is ${sizeText(bytes)}; at most ${sizeText(MAX_POLICY_YAML_BYTES)} (a runPolicy is a few KiB: paste the runPolicy, not logs)`,
    );
  const read = readDocument(text);
  if (!read.ok) return read.result;
  if (read.doc === null)
    return {
      ok: true,
      runPolicy: runPolicySchema.parse({}),
      warnings: [],
      notes: ["empty: HyperPod's defaults"],
    };
  const converted = toValue(read.doc, read.lineCounter);
  if (!converted.ok) return converted.result;
  const locate = createYamlLocator(read.doc, read.lineCounter);
  return isJob(converted.value) ? fromJob(text, locate) : fromRunPolicy(converted.value, locate);
}

/** The runPolicy as the editor shows it (keys in the schema's order, defaults written out). */
export function policyToYaml(runPolicy: RunPolicy): string {
  return stringify(runPolicy, { lineWidth: 0 });
}
