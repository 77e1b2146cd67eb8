import { z } from "zod";
import { compilePattern } from "./pattern";

/**
 * One `spec.runPolicy.logMonitoringConfiguration[]` entry
 * (docs/hyperpod-compatibility.md, "The job resource"), accepting what hyperpodrun's LogEvaluator accepts
 * (its logagent/log_agent.py, read from hyperpod-elastic-agent 1.1.3):
 * - `name` and `logPattern` are required; every other key is optional.
 * - The seconds, `metricThreshold` and `metricEvaluationDataPoints` go through Python `int()`: a number
 *   (a fraction is truncated towards zero) or a string of an integer (`"60"`, `" +60 "`, `"1_000"`); a
 *   string like `"2.0"` makes int() raise, so it is refused here.
 * - `operator` and `faultOnMatch` are read with `rule.get()`: null means absent.
 * - Unknown keys are kept and ignored (the agent never looks at them); rule-warnings.ts names them.
 * - metricThreshold without operator (or the reverse, or no capture group) is accepted: the agent then
 *   never compares the metric; rule-warnings.ts says so.
 * Refused, with a message naming the key: a missing name/logPattern, a pattern the linear-time engine cannot
 * compile (the agent would drop every rule of the job with one log line), negative seconds, fewer than 1
 * data point, an unknown operator, a non-boolean faultOnMatch, a non-finite threshold, and a pattern whose
 * cost is over the bounds of pattern-cost.ts (named by rule: "rule StepHang: logPattern repeats (.*a) 100
 * times; at most 64"). The cost bounds are stricter than hyperpodrun, which runs any Python regex.
 */

export const LOG_RULE_OPERATORS = ["gt", "lt", "eq", "gteq", "lteq"] as const;

export const logRuleOperatorSchema = z.enum(LOG_RULE_OPERATORS, {
  error: `expected one of ${LOG_RULE_OPERATORS.join(", ")}`,
});

export type LogRuleOperator = z.infer<typeof logRuleOperatorSchema>;

/** What Python's int() accepts from a string: optional sign, digits with single underscores, spaces around. */
const PYTHON_INT_TEXT = /^\s*[+-]?[0-9]{1,15}(?:_[0-9]{1,15}){0,5}\s*$/;

/** A number (truncated towards zero, as int() does) or a string of an integer. */
function pythonInt(expected: string) {
  return z
    .union(
      [
        z.number({ error: expected }),
        z.string({ error: expected }).regex(PYTHON_INT_TEXT, { error: expected }),
      ],
      {
        error: expected,
      },
    )
    .transform((value) =>
      typeof value === "number" ? Math.trunc(value) : Number(value.replaceAll("_", "")),
    );
}

const SECONDS = 'expected a non-negative integer number of seconds (a number or a string such as "60")';
const secondsSchema = pythonInt(SECONDS).pipe(z.int().min(0, { error: SECONDS }));

const DATA_POINTS = 'expected a positive integer (a number or a string such as "5")';

const patternFieldSchema = z
  .string({ error: "expected a regular expression string" })
  .min(1, { error: "expected a non-empty regular expression" });

/** Python's rule.get(key): an explicit null reads as absent. */
const absentIfNull = <T>(value: T | null): T | undefined => value ?? undefined;

export const LOG_RULE_KEYS = [
  "name",
  "logPattern",
  "expectedStartCutOffInSeconds",
  "expectedRecurringFrequencyInSeconds",
  "stopPattern",
  "metricThreshold",
  "operator",
  "metricEvaluationDataPoints",
  "faultOnMatch",
] as const;

const logMonitoringRuleObjectSchema = z.looseObject({
  name: z.string({ error: "expected a string" }).min(1, { error: "expected a non-empty rule name" }),
  logPattern: patternFieldSchema,
  expectedStartCutOffInSeconds: secondsSchema.optional(),
  expectedRecurringFrequencyInSeconds: secondsSchema.optional(),
  stopPattern: patternFieldSchema.optional(),
  // The CRD model types this as int; the agent applies int() (2.9 -> 2). The docs' example writes 2.0.
  metricThreshold: pythonInt('expected a finite number or a string of an integer such as "100"').optional(),
  operator: logRuleOperatorSchema.nullable().transform(absentIfNull).optional(),
  metricEvaluationDataPoints: pythonInt(DATA_POINTS)
    .pipe(z.int().min(1, { error: DATA_POINTS }))
    .optional(),
  faultOnMatch: z.boolean({ error: "expected true or false" }).nullable().transform(absentIfNull).optional(),
});

/** A pattern too costly to run (pattern-cost.ts) is refused naming the rule: "rule StepHang: logPattern repeats …". */
function patternIssue(rule: { name: string }, key: "logPattern" | "stopPattern", source: string) {
  const compiled = compilePattern(source);
  if (compiled.ok) return null;
  const message = compiled.cost ? `rule ${rule.name}: ${key} ${compiled.reason}` : compiled.reason;
  return { code: "custom" as const, path: [key], message };
}

export const logMonitoringRuleSchema = logMonitoringRuleObjectSchema.superRefine((rule, ctx) => {
  const log = patternIssue(rule, "logPattern", rule.logPattern);
  if (log) ctx.addIssue(log);
  const stop = rule.stopPattern === undefined ? null : patternIssue(rule, "stopPattern", rule.stopPattern);
  if (stop) ctx.addIssue(stop);
});

export type LogMonitoringRule = z.output<typeof logMonitoringRuleSchema>;
/** A rule as written (numbers may be strings). */
export type LogMonitoringRuleInput = z.input<typeof logMonitoringRuleSchema>;
