import { createHash } from "node:crypto";
import type { z } from "zod";
import type { ClusterJob } from "@/server/cluster/types";
import { parseShadowAnnotation, SHADOW_ANNOTATION } from "@/server/domain/job-spec/shadow-annotation";
import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import { type PolicyLabel, policyLabelSchema } from "@/server/domain/operator-api/contract";

/**
 * What issue 12 keeps on the job object besides spec.runPolicy, as annotations (HyperPod's spec stays as the
 * user wrote it): the library policy in force (`rebound.dev/policy: <team>/<name> v<N>`, its id beside it),
 * and a shadow rule set the operator watches without acting (`rebound.dev/shadow-log-monitoring`, JSON).
 */
export const POLICY_ANNOTATION = "rebound.dev/policy";
/** The applied policy as JSON ({ id, name, version }), for the console to link it. */
export const POLICY_REF_ANNOTATION = "rebound.dev/policy-ref";
export { SHADOW_ANNOTATION };
/** The shadow's policy as JSON ({ id, name, version }), when it came from the library. */
export const SHADOW_POLICY_ANNOTATION = "rebound.dev/shadow-policy";

/** Kubernetes refuses more than 256 KiB of annotations in all; a shadow keeps well inside that. */
export const MAX_SHADOW_BYTES = 64 * 1024;

/** `<team>/<name> v<N>` (the team when the label names one). */
export function policyLabelText(label: PolicyLabel): string {
  return `${label.team ? `${label.team}/` : ""}${label.name} v${label.version}`;
}

function readJson<T>(text: string | undefined, schema: z.ZodType<T>): T | null {
  if (text === undefined) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const annotationsOf = (job: ClusterJob): Record<string, string> => job.object.metadata.annotations ?? {};

/** The library policy applied to the job (null: its own runPolicy, or one written by hand since). */
export function appliedPolicy(job: ClusterJob): { label: PolicyLabel | null; text: string | null } {
  const annotations = annotationsOf(job);
  return {
    label: readJson(annotations[POLICY_REF_ANNOTATION], policyLabelSchema),
    text: annotations[POLICY_ANNOTATION] ?? null,
  };
}

export type ShadowRules = { rules: LogMonitoringRule[]; policy: PolicyLabel | null };

/** Annotation texts whose rules are kept parsed (the most recent; a job's text changes only on apply). */
const PARSED_KEPT = 64;
const parsed = new Map<string, LogMonitoringRule[]>();

/**
 * The annotation's rules within the limits, parsed once per text: checking them compiles every pattern
 * (17 ms for the worst set the limits accept), and the watcher asks at every reconcile of a shadowed job.
 */
function rulesOf(text: string | undefined): LogMonitoringRule[] {
  if (text === undefined) return [];
  const known = parsed.get(text);
  if (known) return known;
  const { rules } = parseShadowAnnotation(text);
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value as string);
  parsed.set(text, rules);
  return rules;
}

/**
 * The job's shadow rule set: the annotation's rules that hold to the rule limits (a rule that does not is
 * dropped alone, and submit warned of it: shadow-annotation.ts); null when none is left.
 */
export function shadowRules(job: ClusterJob): ShadowRules | null {
  const annotations = annotationsOf(job);
  const rules = rulesOf(annotations[SHADOW_ANNOTATION]);
  if (rules.length === 0) return null;
  return { rules, policy: readJson(annotations[SHADOW_POLICY_ANNOTATION], policyLabelSchema) };
}

/** The annotations that set (or, with null rules, remove) a shadow. */
export function shadowAnnotations(shadow: ShadowRules | null): Record<string, string | null> {
  return {
    [SHADOW_ANNOTATION]: shadow ? JSON.stringify(shadow.rules) : null,
    [SHADOW_POLICY_ANNOTATION]: shadow?.policy ? JSON.stringify(shadow.policy) : null,
  };
}

/** The annotations that name the policy applied (null: the runPolicy is nobody's library version). */
export function policyAnnotations(label: PolicyLabel | null): Record<string, string | null> {
  return {
    [POLICY_ANNOTATION]: label ? policyLabelText(label) : null,
    [POLICY_REF_ANNOTATION]: label ? JSON.stringify(label) : null,
  };
}

/** A short fingerprint of a rule list: what an attempt was started with, compared with the spec's now. */
export function rulesFingerprint(rules: readonly unknown[] | null | undefined): string {
  return createHash("sha256")
    .update(JSON.stringify(rules ?? []))
    .digest("hex")
    .slice(0, 16);
}
