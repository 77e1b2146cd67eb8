import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import type { LogMonitoringRule, LogRuleOperator } from "@/server/domain/log-rules/log-rule.schema";

/**
 * Each rule and the restart policy in words, as the evaluator (server/domain/log-rules/evaluator.ts) and the
 * recovery decision (server/domain/recovery/decide.ts) apply them: "faults the job when no line matches
 * `.*step.*` for 30 s after the first match".
 */

const OPERATOR_WORDS: Record<LogRuleOperator, string> = {
  gt: "above",
  lt: "below",
  eq: "equal to",
  gteq: "at or above",
  lteq: "at or below",
};

const code = (pattern: string) => `\`${pattern}\``;
const seconds = (n: number) => (n === 1 ? "1 s" : `${n} s`);

function windows(rule: LogMonitoringRule, pattern: string): string[] {
  const parts: string[] = [];
  if (rule.expectedStartCutOffInSeconds !== undefined)
    parts.push(
      `faults the job (hang) when no line matches ${pattern} within ${seconds(rule.expectedStartCutOffInSeconds)} of the start`,
    );
  if (rule.expectedRecurringFrequencyInSeconds !== undefined)
    parts.push(
      `faults the job (hang) when no line matches ${pattern} for ${seconds(rule.expectedRecurringFrequencyInSeconds)} after the last match`,
    );
  return parts;
}

function metric(rule: LogMonitoringRule, pattern: string): string[] {
  if (rule.metricThreshold !== undefined && rule.operator !== undefined) {
    const points = rule.metricEvaluationDataPoints ?? 1;
    const run = points === 1 ? "on one matching line" : `on ${points} matching lines in a row`;
    return [
      `faults the job (slow) when the value captured by ${pattern}'s first group is ${OPERATOR_WORDS[rule.operator]} ${rule.metricThreshold} ${run}`,
    ];
  }
  if (rule.metricThreshold !== undefined || rule.operator !== undefined)
    return ["checks no value: metricThreshold and operator are needed together"];
  return [];
}

export function explainRule(rule: LogMonitoringRule): string {
  const pattern = code(rule.logPattern);
  const parts = [
    ...(rule.faultOnMatch ? [`faults the job on the first line that matches ${pattern}`] : []),
    ...windows(rule, pattern),
    ...metric(rule, pattern),
  ];
  if (parts.length === 0)
    parts.push(`watches for ${pattern} but can never fault (no window, threshold or faultOnMatch)`);
  const text = parts.join("; and ");
  const stop =
    rule.stopPattern === undefined ? "" : `; stops watching once a line matches ${code(rule.stopPattern)}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${stop}.`;
}

function escalation(policy: RunPolicy): string[] {
  const restart = policy.restartPolicy;
  if (restart === undefined)
    return [
      "No restartPolicy: each fault restarts the job's processes in place (or replaces a faulty node's pods), without escalation.",
    ];
  const before = restart.numRestartBeforeFullJobRestart;
  const lines = [
    before === undefined
      ? `Within any ${seconds(restart.evalPeriodSeconds)} window, faults restart processes in place (or replace a faulty node's pods) without escalating to a full job restart.`
      : `Within a ${seconds(restart.evalPeriodSeconds)} window, the first ${before} fault(s) restart processes in place (or replace a faulty node's pods); the next one restarts the whole job.`,
    restart.maxFullJobRestarts === undefined
      ? "Full job restarts are not limited."
      : `After ${restart.maxFullJobRestarts} full job restart(s), the next escalation fails the job.`,
  ];
  if (restart.maxNumRepeatOffendersToAvoid)
    lines.push(
      `Up to ${restart.maxNumRepeatOffendersToAvoid} node(s) that fault repeatedly are avoided when pods are placed again.`,
    );
  return lines;
}

const LIMITS: ReadonlyArray<[keyof RunPolicy, (n: number) => string]> = [
  ["jobMaxRetryCount", (n) => `The job fails once it has restarted ${n} time(s) in all (jobMaxRetryCount).`],
  [
    "activeDeadlineSeconds",
    (n) => `The job fails after running ${seconds(n)} in all (activeDeadlineSeconds).`,
  ],
  [
    "startupDeadlineSeconds",
    (n) => `A start that takes longer than ${seconds(n)} fails the job (startupDeadlineSeconds).`,
  ],
  [
    "faultDeadlineSeconds",
    (n) => `A recovery that takes longer than ${seconds(n)} fails the job (faultDeadlineSeconds).`,
  ],
];

const CLEAN_UP: Record<RunPolicy["cleanPodPolicy"], string> = {
  All: "When it ends, all its pods are deleted (cleanPodPolicy All).",
  OnlyComplete: "When it ends, only its completed pods are deleted (cleanPodPolicy OnlyComplete).",
  None: "When it ends, its pods are kept (cleanPodPolicy None).",
};

function explainRestart(policy: RunPolicy): string[] {
  const limits = LIMITS.flatMap(([key, say]) => {
    const value = policy[key];
    return typeof value === "number" ? [say(value)] : [];
  });
  return [...escalation(policy), ...limits, CLEAN_UP[policy.cleanPodPolicy]];
}

export function explainPolicy(policy: RunPolicy): {
  rules: Array<{ name: string; text: string }>;
  restart: string[];
} {
  return {
    rules: (policy.logMonitoringConfiguration ?? []).map((rule) => ({
      name: rule.name,
      text: explainRule(rule),
    })),
    restart: explainRestart(policy),
  };
}
