/**
 * The form view's side of the policy YAML: the common runPolicy fields read from the YAML Document and
 * written back into it, so comments, key order and quoting survive a form edit (the YAML is the source of
 * truth; the form is a view of it). A whole HyperPodPyTorchJob is edited at its spec.runPolicy. Values are
 * written as typed (numbers as numbers, anything else as text) and left for parsePolicyYaml to judge.
 */
import { type Document, isMap, isScalar, isSeq, parseDocument } from "yaml";

export const RESTART_FIELDS = [
  "evalPeriodSeconds",
  "numRestartBeforeFullJobRestart",
  "maxFullJobRestarts",
  "maxNumRepeatOffendersToAvoid",
  "scaleUpSnoozeTimeInSeconds",
] as const;
export type RestartField = (typeof RESTART_FIELDS)[number];

export const RULE_FIELDS = [
  "name",
  "logPattern",
  "expectedStartCutOffInSeconds",
  "expectedRecurringFrequencyInSeconds",
  "metricThreshold",
  "operator",
  "metricEvaluationDataPoints",
  "faultOnMatch",
  "stopPattern",
] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

/** How a field's input becomes a YAML value. */
export type FieldKind = "number" | "text" | "boolean";

const NUMBER_FIELDS: ReadonlySet<string> = new Set([
  ...RESTART_FIELDS,
  "jobMaxRetryCount",
  "expectedStartCutOffInSeconds",
  "expectedRecurringFrequencyInSeconds",
  "metricThreshold",
  "metricEvaluationDataPoints",
]);

export function kindOf(key: string): FieldKind {
  if (key === "faultOnMatch") return "boolean";
  return NUMBER_FIELDS.has(key) ? "number" : "text";
}

/** Every value as the input shows it ("" when not written). */
export type PolicyFormValues = {
  restartPolicy: Record<RestartField, string>;
  jobMaxRetryCount: string;
  cleanPodPolicy: string;
  rules: Array<Record<RuleField, string>>;
};

/** A field of the runPolicy: `["restartPolicy", "maxFullJobRestarts"]`, `["logMonitoringConfiguration", 0, "name"]`. */
export type FormPath = readonly [string, ...Array<string | number>];

export type FormRead = { ok: true; values: PolicyFormValues } | { ok: false; reason: string };

/** Where the runPolicy is: the root, or spec.runPolicy of a whole job. */
function basePath(doc: Document): Array<string | number> {
  const spec = doc.get("spec");
  const wholeJob = doc.has("kind") || doc.has("apiVersion") || (isMap(spec) && spec.has("runPolicy"));
  return isMap(spec) && wholeJob ? ["spec", "runPolicy"] : [];
}

function text(node: unknown): string {
  if (node === undefined || node === null) return "";
  const value = isScalar(node) ? node.value : node;
  return value === null || value === undefined ? "" : String(value);
}

function readMap<K extends string>(map: unknown, keys: readonly K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const key of keys) out[key] = isMap(map) ? text(map.get(key, true)) : "";
  return out;
}

function shapeProblem(restart: unknown, rules: unknown): string | null {
  if (restart !== undefined && restart !== null && !isMap(restart)) return "restartPolicy is not a mapping";
  if (rules === undefined || rules === null) return null;
  if (!isSeq(rules)) return "logMonitoringConfiguration is not a list";
  return rules.items.every((item) => isMap(item)) ? null : "a log rule is not a mapping";
}

/** The form's values, or why the form cannot show this YAML (a syntax error, a field of the wrong shape). */
export function readForm(yaml: string): FormRead {
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0)
    return { ok: false, reason: doc.errors[0]?.message.split("\n")[0] ?? "invalid YAML" };
  const root = doc.contents;
  if (root !== null && !isMap(root)) return { ok: false, reason: "the policy is not a mapping" };
  const base = basePath(doc);
  const restart = doc.getIn([...base, "restartPolicy"]);
  const rules = doc.getIn([...base, "logMonitoringConfiguration"]);
  const problem = shapeProblem(restart, rules);
  if (problem !== null) return { ok: false, reason: problem };
  const items = isSeq(rules) ? rules.items : [];
  return {
    ok: true,
    values: {
      restartPolicy: readMap(restart, RESTART_FIELDS),
      jobMaxRetryCount: text(doc.getIn([...base, "jobMaxRetryCount"], true)),
      cleanPodPolicy: text(doc.getIn([...base, "cleanPodPolicy"], true)),
      rules: items.map((item) => readMap(item, RULE_FIELDS)),
    },
  };
}

const NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** An input's text as the YAML value to write; undefined removes the key. */
export function yamlValueOf(input: string, kind: FieldKind): string | number | boolean | undefined {
  const trimmed = input.trim();
  if (trimmed === "") return undefined;
  if (kind === "number" && NUMBER.test(trimmed)) return Number(trimmed);
  if (kind === "boolean" && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
  return kind === "text" ? input : trimmed;
}

function edit(yaml: string, change: (doc: Document, base: Array<string | number>) => void): string {
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0) return yaml;
  change(doc, basePath(doc));
  return doc.toString();
}

/** Removes a mapping left empty by a removal (restartPolicy with no field left). */
function dropIfEmpty(doc: Document, path: Array<string | number>) {
  const node = doc.getIn(path);
  if (isMap(node) && node.items.length === 0) doc.deleteIn(path);
}

/** The YAML with one field set from its input (or removed when the input is empty). */
export function writeField(yaml: string, path: FormPath, input: string): string {
  const key = String(path[path.length - 1]);
  const value = yamlValueOf(input, kindOf(key));
  return edit(yaml, (doc, base) => {
    const full = [...base, ...path];
    if (value === undefined) {
      doc.deleteIn(full);
      if (full.length > 1 && typeof full[full.length - 2] === "string") dropIfEmpty(doc, full.slice(0, -1));
      return;
    }
    const node = doc.getIn(full, true);
    // The scalar is kept (with its comment); only its value changes.
    if (isScalar(node)) node.value = value;
    else doc.setIn(full, value);
  });
}

/** The YAML with a rule appended to logMonitoringConfiguration (created when missing). */
export function addRule(yaml: string, rule: { name: string; logPattern: string }): string {
  return edit(yaml, (doc, base) => {
    const path = [...base, "logMonitoringConfiguration"];
    const rules = doc.getIn(path);
    const node = doc.createNode({ name: rule.name, logPattern: rule.logPattern });
    if (isSeq(rules)) rules.add(node);
    else doc.setIn(path, doc.createNode([node]));
  });
}

/** The YAML without rule `index` (and without logMonitoringConfiguration once it is empty). */
export function removeRule(yaml: string, index: number): string {
  return edit(yaml, (doc, base) => {
    const path = [...base, "logMonitoringConfiguration"];
    doc.deleteIn([...path, index]);
    const rules = doc.getIn(path);
    if (isSeq(rules) && rules.items.length === 0) doc.deleteIn(path);
  });
}
