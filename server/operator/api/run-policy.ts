import type { ClusterBackend, JobObjectUpdateResult, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import {
  type PolicyLabel,
  runPolicyUpdateSchema,
  shadowPolicyUpdateSchema,
} from "@/server/domain/operator-api/contract";
import { AppError } from "@/server/errors";
import {
  appliedPolicy,
  MAX_SHADOW_BYTES,
  policyAnnotations,
  policyLabelText,
  shadowAnnotations,
  shadowRules,
} from "@/server/operator/shadow/marks";
import type { AuditNote } from "./audit";
import { HttpError } from "./http-utils";

/**
 * Issue 12's two writes of a job's policy through the operator's API, on either back end:
 * - PUT …/run-policy replaces spec.runPolicy (enforcing) under optimistic concurrency: only while the job
 *   is still at the resourceVersion the caller read; the running agents keep their rules until the next
 *   attempt's /start (server/operator/reconcilers/steps.ts sends the spec's rules then).
 * - PUT …/shadow-policy keeps log rules on the job as an annotation, spec untouched; the operator watches
 *   them on the running ranks and records what it would have done (server/operator/shadow), never acting.
 */
type Answer = { status: number; body: unknown; audit: AuditNote };

const describeIssues = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");

function refused(ref: JobRef, result: Exclude<JobObjectUpdateResult, { ok: true }>): never {
  if (result.reason === "not-found") throw new HttpError(404, `job ${jobKey(ref)} not found`);
  throw new AppError(
    "CONFLICT",
    `the job changed since you loaded it (resourceVersion ${result.expected}, now ${result.current}); reload`,
  );
}

const labelText = (label: PolicyLabel | null) => (label ? policyLabelText(label) : null);

export async function putRunPolicy(backend: ClusterBackend, ref: JobRef, body: unknown): Promise<Answer> {
  const parsed = runPolicyUpdateSchema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  const { runPolicy, expectedVersion, policy, by } = parsed.data;
  const job = await backend.getJob(ref);
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  // Suspension is the console's switch, not part of a policy: an apply keeps the job as suspended as it is.
  const suspend = job.object.spec.runPolicy.suspend;
  const next = suspend === undefined ? runPolicy : { ...runPolicy, suspend };
  const result = await backend.updateJobObject(ref, {
    runPolicy: next,
    annotations: policyAnnotations(policy),
    expectedVersion,
  });
  if (!result.ok) refused(ref, result);
  const before = appliedPolicy(job).text;
  return {
    status: 200,
    body: { resourceVersion: result.resourceVersion },
    audit: {
      action: "operator.job.run-policy",
      target: jobKey(ref),
      by,
      details: {
        policy: labelText(policy),
        before,
        fromVersion: expectedVersion,
        toVersion: result.resourceVersion,
      },
    },
  };
}

function refuseOversized(rules: readonly unknown[]): void {
  const size = Buffer.byteLength(JSON.stringify(rules));
  if (size <= MAX_SHADOW_BYTES) return;
  throw new HttpError(
    400,
    `rules: ${Math.ceil(size / 1024)} KiB of shadow rules; at most ${MAX_SHADOW_BYTES / 1024} KiB fit on the job (shorten the patterns or drop rules)`,
  );
}

const shadowText = (shadow: { rules: readonly unknown[]; policy: PolicyLabel | null } | null) =>
  shadow ? (labelText(shadow.policy) ?? `${shadow.rules.length} rules`) : null;

export async function putShadowPolicy(backend: ClusterBackend, ref: JobRef, body: unknown): Promise<Answer> {
  const parsed = shadowPolicyUpdateSchema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  const { rules, policy, by } = parsed.data;
  const shadow = rules && rules.length > 0 ? { rules, policy } : null;
  if (shadow) refuseOversized(shadow.rules);
  const job = await backend.getJob(ref);
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  const before = shadowRules(job);
  const result = await backend.updateJobObject(ref, {
    annotations: shadowAnnotations(shadow),
    expectedVersion: null,
  });
  if (!result.ok) refused(ref, result);
  return {
    status: 200,
    body: { resourceVersion: result.resourceVersion },
    audit: {
      action: "operator.job.shadow-policy",
      target: jobKey(ref),
      by,
      details: { before: shadowText(before), after: shadowText(shadow) },
    },
  };
}
