import type { Prisma } from "@/generated/prisma/client";
import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { canApplyPolicy, canReadPolicies } from "@/server/domain/access/policies";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import { parsePolicyYaml, policyToYaml } from "@/server/domain/policy";
import { AppError } from "@/server/errors";
import { requireActionable, requireReadable } from "@/server/services/access/job-access";
import type { SessionUser } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { toAppError } from "@/server/services/jobs/queries";
import type { ApplyResult, PolicyRef } from "@/server/services/policies/policies.schema";
import { writeAudit } from "@/server/store/audit/mutations";
import { policyTeam, policyVersion } from "./queries";

/**
 * A running job's policy (issue 12): what it runs under, applying a library version to it (enforcing:
 * spec.runPolicy is replaced under optimistic concurrency, the agents get the rules at their next attempt),
 * attaching a shadow rule set that only reports, and promoting the shadow to enforcing. Only the job's
 * team's engineers and cluster admins act (job-access.ts requireActionable, then canApplyPolicy for the
 * policy's team); every change is audited with before and after.
 */

export type JobPolicyView = {
  yaml: string;
  resourceVersion: string;
  appliedPolicy: PolicyRef | null;
  shadow: { policy: PolicyRef | null; rules: unknown[] } | null;
  /** Rules applied that the running agents have not started with yet (they take them at the next attempt). */
  pendingRestart: boolean;
  canApply: boolean;
  teamId: string | null;
  ranks: number;
};

/** What the page says about when an apply takes effect. */
export const TAKES_EFFECT =
  "saved to the job now; the operator's restart policy uses it for the next fault, and each rank's agent watches the new log rules from its next start (the next restart)";

type JobPolicyState = Omit<JobPolicyView, "canApply" | "teamId">;

/** The job's current runPolicy, resourceVersion, applied policy and shadow, as the cluster source reads them. */
async function jobPolicyState(source: ClusterSource, ref: JobRef): Promise<JobPolicyState> {
  const detail = await source.job(ref).catch((error: unknown) => {
    throw toAppError(error);
  });
  if (!detail) throw new AppError("NOT_FOUND", `job ${ref.namespace}/${ref.name} not found`);
  const policy = detail.policy;
  if (!policy) {
    throw new AppError(
      "UNAVAILABLE",
      `job ${ref.namespace}/${ref.name}: its policy cannot be read or changed here (the cluster's own operator runs it, or Rebound's operator is older than policies)`,
    );
  }
  return {
    yaml: policyToYaml(policy.runPolicy),
    resourceVersion: policy.resourceVersion,
    appliedPolicy: policy.applied,
    shadow: policy.shadow,
    pendingRestart: policy.pendingRestart,
    ranks: detail.live.ranksTotal,
  };
}

export async function jobPolicy(
  db: Db,
  args: { source: ClusterSource; user: SessionUser; ref: JobRef },
): Promise<JobPolicyView> {
  const access = await requireReadable(db, args.user, args.ref);
  const state = await jobPolicyState(args.source, args.ref);
  return { ...state, canApply: access.canAct, teamId: access.team?.id ?? null };
}

/** A library version the user may put on this job, parsed again (the parser of today decides). */
async function versionToApply(
  db: Db,
  args: { user: SessionUser; jobTeamId: string | null; policyId: string; version: number },
): Promise<{ ref: PolicyRef; runPolicy: RunPolicy }> {
  const team = await policyTeam(db, args.policyId);
  const { memberships } = args.user;
  if (!canReadPolicies(memberships, team.id)) {
    throw new AppError("NOT_FOUND", `policy ${args.policyId} not found`);
  }
  if (!canApplyPolicy(memberships, { jobTeamId: args.jobTeamId, policyTeamId: team.id })) {
    throw new AppError(
      "FORBIDDEN",
      "only an engineer of the job's team or a cluster admin may apply policies to it",
    );
  }
  const row = await policyVersion(db, { id: args.policyId, version: args.version });
  const policy = await db.policy.findUniqueOrThrow({ where: { id: args.policyId }, select: { name: true } });
  const parsed = parsePolicyYaml(row.yaml);
  if (!parsed.ok) {
    const first = parsed.errors[0];
    throw new AppError(
      "INVALID",
      `policy "${policy.name}" version ${args.version} no longer parses (${first ? `${first.path}: ${first.message}` : "invalid"}); save a fixed version`,
    );
  }
  return {
    ref: { id: args.policyId, name: policy.name, version: args.version, team: team.name },
    runPolicy: parsed.runPolicy,
  };
}

async function audit(
  db: Db,
  entry: { user: SessionUser; action: string; ref: JobRef; details: Record<string, unknown> },
): Promise<void> {
  await db.$transaction((tx) =>
    writeAudit(tx, {
      userId: entry.user.id,
      action: entry.action,
      target: `${entry.ref.namespace}/${entry.ref.name}`,
      details: JSON.parse(JSON.stringify(entry.details)) as Prisma.InputJsonValue,
    }),
  );
}

type ApplyArgs = {
  source: ClusterSource;
  user: SessionUser;
  ref: JobRef;
  policy: { policyId: string; version: number };
  expectedVersion: string;
  /** policy.apply, or policy.promote when the shadow becomes enforcing. */
  action: "policy.apply" | "policy.promote";
};

/** Replaces the job's spec.runPolicy with a library version when `expectedVersion` is still the job's. */
export async function applyPolicy(db: Db, args: ApplyArgs): Promise<ApplyResult> {
  const { source, user, ref } = args;
  const access = await requireActionable(db, user, { ref, action: "apply a policy to" });
  const chosen = await versionToApply(db, { user, jobTeamId: access.team?.id ?? null, ...args.policy });
  const before = await jobPolicyState(source, ref);
  const written = await source
    .applyRunPolicy(ref, {
      runPolicy: chosen.runPolicy,
      expectedVersion: args.expectedVersion,
      policy: chosen.ref,
      by: user.email,
    })
    .catch((error: unknown) => {
      throw toAppError(error);
    });
  await audit(db, {
    user,
    action: args.action,
    ref,
    details: {
      policy: chosen.ref,
      before: { resourceVersion: before.resourceVersion, policy: before.appliedPolicy, yaml: before.yaml },
      after: {
        resourceVersion: written.resourceVersion,
        policy: chosen.ref,
        yaml: policyToYaml(chosen.runPolicy),
      },
    },
  });
  return { resourceVersion: written.resourceVersion, takesEffect: TAKES_EFFECT };
}

/** Attaches a version's log rules to the job as a shadow (reports only), or detaches it (null). */
export async function setShadow(
  db: Db,
  args: {
    source: ClusterSource;
    user: SessionUser;
    ref: JobRef;
    shadow: { policyId: string; version: number } | null;
  },
): Promise<{ ok: true }> {
  const { source, user, ref } = args;
  const access = await requireActionable(db, user, { ref, action: "attach a shadow policy to" });
  const chosen =
    args.shadow === null
      ? null
      : await versionToApply(db, { user, jobTeamId: access.team?.id ?? null, ...args.shadow });
  const rules = chosen?.runPolicy.logMonitoringConfiguration ?? null;
  if (chosen && (rules === null || rules.length === 0)) {
    throw new AppError(
      "INVALID",
      `shadow: policy "${chosen.ref.name}" version ${chosen.ref.version} has no logMonitoringConfiguration rules to watch`,
    );
  }
  const before = await jobPolicyState(source, ref);
  await source
    .setShadowPolicy(ref, { rules, policy: chosen?.ref ?? null, by: user.email })
    .catch((error: unknown) => {
      throw toAppError(error);
    });
  await audit(db, {
    user,
    action: chosen ? "policy.shadow" : "policy.unshadow",
    ref,
    details: { before: before.shadow?.policy ?? null, after: chosen?.ref ?? null },
  });
  return { ok: true };
}

/** The shadow's version becomes enforcing (as an apply, audited as a promotion) and the shadow is cleared. */
export async function promoteShadow(
  db: Db,
  args: { source: ClusterSource; user: SessionUser; ref: JobRef; expectedVersion: string },
): Promise<ApplyResult> {
  const { source, user, ref } = args;
  await requireActionable(db, user, { ref, action: "promote the shadow policy of" });
  const state = await jobPolicyState(source, ref);
  const shadow = state.shadow?.policy;
  if (!shadow)
    throw new AppError("CONFLICT", `job ${ref.namespace}/${ref.name} has no shadow policy to promote`);
  const result = await applyPolicy(db, {
    source,
    user,
    ref,
    policy: { policyId: shadow.id, version: shadow.version },
    expectedVersion: args.expectedVersion,
    action: "policy.promote",
  });
  await source.setShadowPolicy(ref, { rules: null, policy: null, by: user.email }).catch((error: unknown) => {
    throw toAppError(error);
  });
  return result;
}
