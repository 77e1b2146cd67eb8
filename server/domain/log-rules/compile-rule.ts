import type { LogMonitoringRule } from "./log-rule.schema";
import { type CompiledPattern, compilePattern } from "./pattern";

/** A validated rule with its regexes compiled; the input of createRuleEvaluator. */
export type CompiledLogRule = {
  readonly config: LogMonitoringRule;
  readonly logPattern: CompiledPattern;
  readonly stopPattern: CompiledPattern | null;
};

export type CompileLogRuleResult =
  | { ok: true; rule: CompiledLogRule }
  | { ok: false; reason: string; path: "logPattern" | "stopPattern" };

export function compileLogRule(config: LogMonitoringRule): CompileLogRuleResult {
  const log = compilePattern(config.logPattern);
  if (!log.ok)
    return { ok: false, reason: `rule ${config.name}: logPattern: ${log.reason}`, path: "logPattern" };
  let stopPattern: CompiledPattern | null = null;
  if (config.stopPattern !== undefined) {
    const stop = compilePattern(config.stopPattern);
    if (!stop.ok) {
      return { ok: false, reason: `rule ${config.name}: stopPattern: ${stop.reason}`, path: "stopPattern" };
    }
    stopPattern = stop.pattern;
  }
  return { ok: true, rule: { config, logPattern: log.pattern, stopPattern } };
}
