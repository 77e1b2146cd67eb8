import { z } from "zod";
import { type LogRuleOperator, logRuleOperatorSchema } from "@/server/domain/log-rules/log-rule.schema";
import { parsePythonFloat } from "@/server/domain/log-rules/python-float";

/**
 * Which lines of a rank's log the console marks: those that make a log rule act, not every line a rule's
 * logPattern matches. A hang rule (`.*step=(\d+).*`, expectedRecurringFrequencyInSeconds) and a metric
 * rule (`.*throughput=([0-9.]+).*`) match every progress line of a healthy trainer, so marking logPattern
 * matches marked the whole log (issue 36 item 1). A line is marked where, read as the agent reads it
 * (server/domain/log-rules/evaluator.ts):
 * - a faultOnMatch rule's logPattern matches it: the rank faults on that line;
 * - a metric rule's (capture group, metricThreshold and operator) value on it passes the comparison: one
 *   of the metricEvaluationDataPoints that make the rank SLOW (NaN never does, as in Python);
 * - a rule's stopPattern matches it: the rule retires there.
 * A rule with none of these (a pure hang or start rule) marks nothing: its matches are the healthy case.
 */

export type MarkMetric = { threshold: number; operator: LogRuleOperator };

/** One pattern the log-match worker runs; `name` is the mark a matching line gets. */
export type MarkingRule = { name: string; logPattern: string; metric?: MarkMetric };

/** A rule as the job's page carries it: the job's spec as the operator sent it (contract.ts keeps it loose). */
export type PageLogRule = { name: string; logPattern?: string; [key: string]: unknown };

/** What Python's int() takes from a string (log-rule.schema.ts accepts the same). */
const PYTHON_INT_TEXT = /^\s*[+-]?[0-9]+(?:_[0-9]+)*\s*$/;

/**
 * The keys that decide whether a line is marked, read leniently: the operator validated the rule when the
 * job was submitted (log-rule.schema.ts); a key that does not read here marks nothing rather than failing
 * the logs view.
 */
const markingFieldsSchema = z.object({
  faultOnMatch: z.boolean().nullish().catch(null),
  metricThreshold: z
    .union([
      z.number(),
      z
        .string()
        .regex(PYTHON_INT_TEXT)
        .transform((text) => Number(text.replaceAll("_", ""))),
    ])
    .nullish()
    .catch(null),
  operator: logRuleOperatorSchema.nullish().catch(null),
  stopPattern: z.string().min(1).nullish().catch(null),
});

const OPERATOR_TEXT: Record<LogRuleOperator, string> = { gt: ">", lt: "<", eq: "=", gteq: "≥", lteq: "≤" };

/** The patterns that mark lines, each named for the title of a marked line: "LossNaN: faults the rank". */
export function markingRules(rules: readonly PageLogRule[]): MarkingRule[] {
  return rules.flatMap((rule): MarkingRule[] => {
    const fields = markingFieldsSchema.parse(rule);
    const marks: MarkingRule[] = [];
    if (rule.logPattern && fields.faultOnMatch === true) {
      marks.push({ name: `${rule.name}: faults the rank`, logPattern: rule.logPattern });
    } else if (rule.logPattern && typeof fields.metricThreshold === "number" && fields.operator) {
      // Python int(), as the agent compares (evaluator.ts settingsOf).
      const threshold = Math.trunc(fields.metricThreshold);
      marks.push({
        name: `${rule.name}: value ${OPERATOR_TEXT[fields.operator]} ${threshold}`,
        logPattern: rule.logPattern,
        metric: { threshold, operator: fields.operator },
      });
    }
    if (fields.stopPattern)
      marks.push({ name: `${rule.name}: stops the rule`, logPattern: fields.stopPattern });
    return marks;
  });
}

const COMPARE: Record<LogRuleOperator, (value: number, threshold: number) => boolean> = {
  gt: (v, t) => v > t,
  lt: (v, t) => v < t,
  eq: (v, t) => v === t,
  gteq: (v, t) => v >= t,
  lteq: (v, t) => v <= t,
};

/** Whether a metric rule's first capture counts towards SLOW; a capture float() rejects never does. */
export function metricTrips(metric: MarkMetric, group: string | undefined): boolean {
  const value = parsePythonFloat(group);
  return value !== null && COMPARE[metric.operator](value, metric.threshold);
}
