import { type LogMonitoringRule, logMonitoringRuleSchema } from "../log-rules/log-rule.schema";
import { describeValue, formatPath } from "./job-spec-errors";
import { MAX_LOG_RULES } from "./run-policy.schema";

/**
 * A job's shadow rule set (issue 12): log rules in an annotation, as JSON, that the operator watches on the
 * running ranks without acting (server/operator/shadow). Each rule is held to what spec.runPolicy's rules
 * are: the rule schema, its pattern cost bounds (pattern-cost.ts) and at most MAX_LOG_RULES rules. A rule
 * that fails them is dropped alone, and said so: submit answers a warning per dropped rule (issue 34: they
 * were dropped silently, with every other rule of the set).
 */
export const SHADOW_ANNOTATION = "rebound.dev/shadow-log-monitoring";

/** A rule the operator will not watch: its place in the list (null: the whole annotation), name and why. */
export type DroppedShadowRule = { index: number | null; name: string | null; reason: string };

export type ShadowAnnotation = { rules: LogMonitoringRule[]; dropped: DroppedShadowRule[] };

const nameOf = (raw: unknown): string | null => {
  const name = typeof raw === "object" && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === "string" && name !== "" ? name : null;
};

/** The rule schema's issues in words, without the "rule <name>: " its cost messages start with. */
function reasonOf(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  name: string | null,
): string {
  const prefix = name === null ? null : `rule ${name}: `;
  return issues
    .map((issue) => {
      if (prefix !== null && issue.message.startsWith(prefix)) return issue.message.slice(prefix.length);
      const where = formatPath(issue.path);
      return where === "" ? issue.message : `${where}: ${issue.message}`;
    })
    .join("; ");
}

const whole = (reason: string): ShadowAnnotation => ({
  rules: [],
  dropped: [{ index: null, name: null, reason }],
});

/** The annotation's rules that hold to the limits, and each one dropped with its reason. */
export function parseShadowAnnotation(text: string | undefined): ShadowAnnotation {
  if (text === undefined) return { rules: [], dropped: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return whole(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!Array.isArray(value))
    return whole(`expected a JSON list of log monitoring rules, got ${describeValue(value)}`);
  const rules: LogMonitoringRule[] = [];
  const dropped: DroppedShadowRule[] = [];
  value.forEach((raw: unknown, index) => {
    const name = nameOf(raw);
    const parsed = logMonitoringRuleSchema.safeParse(raw);
    if (!parsed.success) {
      dropped.push({ index, name, reason: reasonOf(parsed.error.issues, name) });
    } else if (rules.length >= MAX_LOG_RULES) {
      dropped.push({
        index,
        name,
        reason: `past the first ${MAX_LOG_RULES} rules: at most ${MAX_LOG_RULES} log monitoring rules per job (each runs on every output line)`,
      });
    } else {
      rules.push(parsed.data);
    }
  });
  return { rules, dropped };
}

/** One dropped rule in words, for a submit's warnings. */
export function droppedShadowRuleMessage(rule: DroppedShadowRule): string {
  if (rule.index === null) return `shadow rules dropped, the operator watches none: ${rule.reason}`;
  const which =
    rule.name === null ? `shadow rule [${rule.index}]` : `shadow rule ${rule.name} ([${rule.index}])`;
  return `${which} dropped, the operator will not watch it: ${rule.reason}`;
}
