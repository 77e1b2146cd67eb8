import { logRuleWarnings } from "../log-rules/rule-warnings";
import type { HyperPodPyTorchJob } from "./job-spec.schema";
import { formatPath, type JobSpecError, type Locator } from "./job-spec-errors";
import { droppedShadowRuleMessage, parseShadowAnnotation, SHADOW_ANNOTATION } from "./shadow-annotation";

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

/**
 * The warnings of a job that passed validation: its log monitoring rules (rule-warnings.ts), and each
 * shadow rule its annotation holds that the operator drops (shadow-annotation.ts).
 */
export function jobSpecWarnings(input: {
  raw: unknown;
  job: HyperPodPyTorchJob;
  locate?: Locator;
}): JobSpecWarning[] {
  const rules = input.job.spec.runPolicy?.logMonitoringConfiguration ?? [];
  const ruleWarnings = logRuleWarnings(rawRules(input.raw), rules).map((warning) => {
    const path = [...RULES_PATH, ...warning.path];
    return {
      path: formatPath(path),
      ...input.locate?.(path, warning.target),
      message: warning.message,
    };
  });
  return [...ruleWarnings, ...shadowWarnings(input.job, input.locate)];
}

function shadowWarnings(job: HyperPodPyTorchJob, locate: Locator | undefined): JobSpecWarning[] {
  const { dropped } = parseShadowAnnotation(job.metadata.annotations?.[SHADOW_ANNOTATION]);
  const path = ["metadata", "annotations", SHADOW_ANNOTATION];
  return dropped.map((rule) => ({
    path: formatPath(path),
    ...locate?.(path, "value"),
    message: droppedShadowRuleMessage(rule),
  }));
}
