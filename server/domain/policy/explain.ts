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

export function explainRule(rule: LogMonitoringRule): string {
  const parts: string[] = [];
  const pattern = code(rule.logPattern);
  if (rule.faultOnMatch) parts.push(`faults the job on the first line that matches ${pattern}`);
  if (rule.expectedStartCutOffInSeconds !== undefined)
    parts.push(
      `faults the job (hang) when no line matches ${pattern} within ${seconds(rule.expectedStartCutOffInSeconds)} of the start`,
    );
  if (rule.expectedRecurringFrequencyInSeconds !== undefined)
    parts.push(
      `faults the job (hang) when no line matches ${pattern} for ${seconds(rule.expectedRecurringFrequencyInSeconds)} after the last match`,
    );
  if (rule.metricThreshold !== undefined && rule.operator !== undefined) {
    const points = rule.metricEvaluationDataPoints ?? 1;
    const run = points === 1 ? "on one matching line" : `on ${points} matching lines in a row`;
    parts.push(
      `faults the job (slow) when the value captured by ${pattern}'s first group is ${OPERATOR_WORDS[rule.operator]} ${rule.metricThreshold} ${run}`,
    );
  } else if (rule.metricThreshold !== undefined || rule.operator !== undefined) {
    parts.push("checks no value: metricThreshold and operator are needed together");
  }
  if (parts.length === 0)
    parts.push(`watches for ${pattern} but can never fault (no window, threshold or faultOnMatch)`);
  const text = parts.join("; and ");
  const stop =
    rule.stopPattern === undefined ? "" : `; stops watching once a line matches ${code(rule.stopPattern)}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${stop}.`;
}

function explainRestart(policy: RunPolicy): string[] {
  const lines: string[] = [];
  const restart = policy.restartPolicy;
  if (restart === undefined) {
    lines.push(
      "No restartPolicy: each fault restarts the job's processes in place (or replaces a faulty node's pods), without escalation.",
    );
  } else {
    const before = restart.numRestartBeforeFullJobRestart;
    lines.push(
      before === undefined
        ? `Within any ${seconds(restart.evalPeriodSeconds)} window, faults restart processes in place (or replace a faulty node's pods) without escalating to a full job restart.`
        : `Within a ${seconds(restart.evalPeriodSeconds)} window, the first ${before} fault(s) restart processes in place (or replace a faulty node's pods); the next one restarts the whole job.`,
    );
    lines.push(
      restart.maxFullJobRestarts === undefined
        ? "Full job restarts are not limited."
        : `After ${restart.maxFullJobRestarts} full job restart(s), the next escalation fails the job.`,
    );
    if (restart.maxNumRepeatOffendersToAvoid)
      lines.push(
        `Up to ${restart.maxNumRepeatOffendersToAvoid} node(s) that fault repeatedly are avoided when pods are placed again.`,
      );
  }
  if (policy.jobMaxRetryCount !== undefined)
    lines.push(
      `The job fails once it has restarted ${policy.jobMaxRetryCount} time(s) in all (jobMaxRetryCount).`,
    );
  if (policy.activeDeadlineSeconds !== undefined)
    lines.push(
      `The job fails after running ${seconds(policy.activeDeadlineSeconds)} in all (activeDeadlineSeconds).`,
    );
  if (policy.startupDeadlineSeconds !== undefined)
    lines.push(
      `A start that takes longer than ${seconds(policy.startupDeadlineSeconds)} fails the job (startupDeadlineSeconds).`,
    );
  if (policy.faultDeadlineSeconds !== undefined)
    lines.push(
      `A recovery that takes longer than ${seconds(policy.faultDeadlineSeconds)} fails the job (faultDeadlineSeconds).`,
    );
  lines.push(
    {
      All: "When it ends, all its pods are deleted (cleanPodPolicy All).",
      OnlyComplete: "When it ends, only its completed pods are deleted (cleanPodPolicy OnlyComplete).",
      None: "When it ends, its pods are kept (cleanPodPolicy None).",
    }[policy.cleanPodPolicy],
  );
  return lines;
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
