import type { ClusterJob } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobPolicyState, ShadowVerdictRecord } from "@/server/domain/operator-api/contract";
import { readState } from "@/server/operator/reconcilers/job-state";
import { appliedPolicy, rulesFingerprint, shadowRules } from "./marks";

/** What the console shows of a job's shadow: its latest verdicts, newest first. */
export const VERDICTS_SHOWN = 50;

/** The job's verdicts of this run (its uid), newest first, as the API sends them. */
export async function latestVerdicts(
  db: Db,
  job: ClusterJob,
  take = VERDICTS_SHOWN,
): Promise<ShadowVerdictRecord[]> {
  const rows = await db.shadowVerdict.findMany({
    where: { jobUid: job.uid },
    orderBy: { at: "desc" },
    take,
  });
  return rows.map((row) => ({
    id: row.id,
    pod: row.pod,
    rank: row.rank,
    rule: row.rule,
    state: row.state,
    reason: row.reason,
    line: row.line,
    wouldAction: row.wouldAction,
    policy: row.policy,
    at: row.at.toISOString(),
  }));
}

/**
 * The job's policy as the job detail answers it: version, applied policy, shadow (with verdicts) and
 * whether the agents of the attempt running still watch other rules than the spec's (pendingRestart:
 * status.rebound.started records the rules sent at /start; they differ once a new runPolicy is applied).
 */
export async function jobPolicyState(db: Db, job: ClusterJob): Promise<JobPolicyState> {
  const applied = appliedPolicy(job);
  const shadow = shadowRules(job);
  const started = readState(job.status, Date.now()).started;
  const specRules = rulesFingerprint(job.object.spec.runPolicy.logMonitoringConfiguration);
  return {
    resourceVersion: job.resourceVersion ?? String(job.generation),
    applied: applied.label,
    appliedText: applied.text,
    shadow: shadow ? { policy: shadow.policy, rules: shadow.rules } : null,
    verdicts: await latestVerdicts(db, job),
    pendingRestart: started !== null && started.logRules !== specRules,
  };
}
