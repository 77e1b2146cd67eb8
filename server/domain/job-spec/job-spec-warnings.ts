import { logRuleWarnings } from "../log-rules/rule-warnings";
import type { HyperPodPyTorchJob } from "./job-spec.schema";
import { formatPath, type JobSpecError, type Locator } from "./job-spec-errors";

/** Something an accepted job contains that hyperpodrun ignores or bends; shaped like a JobSpecError. */
export type JobSpecWarning = JobSpecError;

const RULES_PATH = ["spec", "runPolicy", "logMonitoringConfiguration"] as const;

function rawRules(raw: unknown): unknown[] {
  let node: unknown = raw;
  for (const key of RULES_PATH) {
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return Array.isArray(node) ? node : [];
}

/** The warnings of a job that passed validation: today, its log monitoring rules (rule-warnings.ts). */
export function jobSpecWarnings(input: {
  raw: unknown;
  job: HyperPodPyTorchJob;
  locate?: Locator;
}): JobSpecWarning[] {
  const rules = input.job.spec.runPolicy?.logMonitoringConfiguration ?? [];
  return logRuleWarnings(rawRules(input.raw), rules).map((warning) => {
    const path = [...RULES_PATH, ...warning.path];
    return {
      path: formatPath(path),
      ...input.locate?.(path, warning.target),
      message: warning.message,
    };
  });
}
