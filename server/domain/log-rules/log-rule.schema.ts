import { z } from "zod";
import { compilePattern } from "./pattern";

/**
 * One `spec.runPolicy.logMonitoringConfiguration[]` entry (reference 1.6). Messages are phrased
 * "expected …" like the other job-spec schemas. Both regexes are compiled here with the engine the
 * agent uses, so a pattern that would be refused at run time is refused at admission instead.
 */

export const LOG_RULE_OPERATORS = ["gt", "lt", "eq", "gteq", "lteq"] as const;

export const logRuleOperatorSchema = z.enum(LOG_RULE_OPERATORS, {
  error: `expected one of ${LOG_RULE_OPERATORS.join(", ")}`,
});

export type LogRuleOperator = z.infer<typeof logRuleOperatorSchema>;

const secondsSchema = z
  .int({ error: "expected a non-negative integer number of seconds" })
  .min(0, { error: "expected a non-negative integer number of seconds" });

const patternFieldSchema = z
  .string({ error: "expected a regular expression string" })
  .min(1, { error: "expected a non-empty regular expression" });

const logMonitoringRuleObjectSchema = z.strictObject({
  name: z.string({ error: "expected a string" }).min(1, { error: "expected a non-empty rule name" }),
  logPattern: patternFieldSchema,
  expectedStartCutOffInSeconds: secondsSchema.optional(),
  expectedRecurringFrequencyInSeconds: secondsSchema.optional(),
  stopPattern: patternFieldSchema.optional(),
  // The CRD types this as int and the agent applies Python int() (truncation); see evaluator.ts.
  metricThreshold: z.number({ error: "expected a finite number" }).optional(),
  operator: logRuleOperatorSchema.optional(),
  metricEvaluationDataPoints: z
    .int({ error: "expected a positive integer" })
    .min(1, { error: "expected a positive integer" })
    .optional(),
  faultOnMatch: z.boolean({ error: "expected true or false" }).optional(),
});

type RuleInput = z.output<typeof logMonitoringRuleObjectSchema>;
type Issue = { path: string[]; message: string };

function patternIssues(rule: RuleInput): Issue[] {
  const issues: Issue[] = [];
  const log = compilePattern(rule.logPattern);
  if (!log.ok) issues.push({ path: ["logPattern"], message: log.reason });
  if (rule.stopPattern !== undefined) {
    const stop = compilePattern(rule.stopPattern);
    if (!stop.ok) issues.push({ path: ["stopPattern"], message: stop.reason });
  }
  const wantsMetric = rule.metricThreshold !== undefined && rule.operator !== undefined;
  if (log.ok && wantsMetric && log.pattern.groupCount === 0) {
    issues.push({
      path: ["logPattern"],
      message:
        "expected a capturing group, e.g. (\\d+(?:\\.\\d+)?), whose value is compared with metricThreshold",
    });
  }
  return issues;
}

function pairingIssues(rule: RuleInput): Issue[] {
  if (rule.metricThreshold !== undefined && rule.operator === undefined) {
    return [{ path: ["operator"], message: "expected an operator because metricThreshold is set" }];
  }
  if (rule.operator !== undefined && rule.metricThreshold === undefined) {
    return [{ path: ["metricThreshold"], message: "expected a metricThreshold because operator is set" }];
  }
  return [];
}

export const logMonitoringRuleSchema = logMonitoringRuleObjectSchema.superRefine((rule, ctx) => {
  for (const issue of [...patternIssues(rule), ...pairingIssues(rule)]) {
    ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  }
});

export type LogMonitoringRule = z.infer<typeof logMonitoringRuleSchema>;
