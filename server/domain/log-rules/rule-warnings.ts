import { suggestKey } from "../job-spec/schema-keys";
import { LOG_RULE_KEYS, type LogMonitoringRule } from "./log-rule.schema";
import { compilePattern } from "./pattern";

/**
 * What hyperpodrun accepts but ignores or bends in a rule set that passed logMonitoringRuleSchema: each
 * warning names the rule, the key (path relative to the list) and what the agent does with it. Warnings
 * never refuse a job; the submit path returns them beside the accepted job.
 */

/** `target` "key": the warning is about the key itself (an unknown key), else about its value. */
export type RuleWarning = { path: (string | number)[]; target: "key" | "value"; message: string };

const TRUNCATED_KEYS = [
  "expectedStartCutOffInSeconds",
  "expectedRecurringFrequencyInSeconds",
  "metricThreshold",
  "metricEvaluationDataPoints",
] as const;

const KNOWN: readonly string[] = LOG_RULE_KEYS;

type Ctx = { index: number; name: string; raw: Record<string, unknown>; rule: LogMonitoringRule };

const warn = (
  ctx: Ctx,
  key: string | null,
  text: string,
  target: "key" | "value" = "value",
): RuleWarning => ({
  path: key === null ? [ctx.index] : [ctx.index, key],
  target,
  message: `rule ${ctx.name}: ${text}`,
});

function unknownKeys(ctx: Ctx): RuleWarning[] {
  return Object.keys(ctx.raw)
    .filter((key) => !KNOWN.includes(key))
    .map((key) => {
      const suggestion = suggestKey(key, KNOWN);
      const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
      return warn(ctx, key, `key "${key}" is not a HyperPod rule key; hyperpodrun ignores it${hint}`, "key");
    });
}

function truncations(ctx: Ctx): RuleWarning[] {
  return TRUNCATED_KEYS.flatMap((key) => {
    const value = ctx.raw[key];
    if (typeof value !== "number" || Number.isInteger(value)) return [];
    return [warn(ctx, key, `${key} ${value} is used as ${Math.trunc(value)} (hyperpodrun applies int())`)];
  });
}

function metricWarnings(ctx: Ctx): RuleWarning[] {
  const { metricThreshold, operator, logPattern } = ctx.rule;
  const never = "hyperpodrun never compares the metric, so this rule is never SLOW";
  if (metricThreshold !== undefined && operator === undefined) {
    return [warn(ctx, "metricThreshold", `metricThreshold is set without operator; ${never}`)];
  }
  if (operator !== undefined && metricThreshold === undefined) {
    return [warn(ctx, "operator", `operator is set without metricThreshold; ${never}`)];
  }
  const compiled = compilePattern(logPattern);
  if (operator !== undefined && compiled.ok && compiled.pattern.groupCount === 0) {
    return [warn(ctx, "logPattern", `logPattern has no capturing group for the metric; ${never}`)];
  }
  return [];
}

/** A rule with no window, no faultOnMatch and no metric key can never fault the job (half a metric check is warned above). */
function inertWarning(ctx: Ctx): RuleWarning[] {
  const r = ctx.rule;
  const detects =
    r.expectedStartCutOffInSeconds !== undefined ||
    r.expectedRecurringFrequencyInSeconds !== undefined ||
    r.faultOnMatch === true ||
    r.metricThreshold !== undefined ||
    r.operator !== undefined;
  if (detects) return [];
  return [
    warn(
      ctx,
      null,
      "never faults the job: it sets none of expectedStartCutOffInSeconds, expectedRecurringFrequencyInSeconds, faultOnMatch: true, metricThreshold with operator",
    ),
  ];
}

function duplicates(rules: readonly LogMonitoringRule[]): RuleWarning[] {
  const first = new Map<string, number>();
  return rules.flatMap((rule, index) => {
    const earlier = first.get(rule.name);
    if (earlier === undefined) first.set(rule.name, index);
    if (earlier === undefined) return [];
    const text = `rule ${rule.name}: rule ${earlier} has the same name; a failure reason (e.g. LogHang_${rule.name}) does not say which of them fired`;
    return [{ path: [index, "name"], target: "value", message: text }];
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `raw` is the list as written (for unknown keys and fractions), `rules` the same list parsed by
 * logMonitoringRuleSchema. Paths are relative to the list: `[index, key]`.
 */
export function logRuleWarnings(raw: readonly unknown[], rules: readonly LogMonitoringRule[]): RuleWarning[] {
  const perRule = rules.flatMap((rule, index) => {
    const value = raw[index];
    const ctx: Ctx = { index, name: rule.name, raw: isRecord(value) ? value : {}, rule };
    return [...unknownKeys(ctx), ...truncations(ctx), ...metricWarnings(ctx), ...inertWarning(ctx)];
  });
  return [...perRule, ...duplicates(rules)];
}
