import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobPage, JobRow } from "@/server/domain/jobs/pages";
import { jobSummaryParts, restartTotals } from "@/server/domain/jobs/view-model-summary";
import { AppError } from "@/server/errors";
import { teamsByNamespace } from "@/server/services/access/job-access";
import type { ClusterSource, JobPolicyView } from "@/server/services/jobs/gateway/types";
import { SourceError } from "@/server/services/jobs/gateway/types";
import { sourceId } from "@/server/services/live/scope";
import { liveHub } from "@/server/services/wiring";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { listScalingEvents } from "@/server/store/scaling-events/queries";
import { jobTotalsView, shadowEntries, timelineEntries, topologyView } from "./job-view";
import { matchLogLines } from "./log-matcher";
import { markingRules, type PageLogRule } from "./log-matcher-rules";

/** The console's reads of jobs: the cluster source for live state, Postgres for teams and restart history. */

export function toAppError(error: unknown): unknown {
  if (!(error instanceof SourceError)) return error;
  const code =
    error.status === 404
      ? "NOT_FOUND"
      : error.status === 409
        ? "CONFLICT"
        : error.status === 400
          ? "INVALID"
          : "UNAVAILABLE";
  return new AppError(code, error.message);
}

type RestartCounts = JobRow["restarts"];
const noRestarts = (): RestartCounts => ({ plr: 0, podReplacement: 0, jlr: 0 });

/** Restart counts per run (job uid); `byName` for live jobs from operators that send no uid. */
async function restartCounts(
  db: Db,
): Promise<{ byUid: Map<string, RestartCounts>; byName: Map<string, RestartCounts> }> {
  // Summed counts: a row standing for several identical failures counts each (as the job's page does).
  const groups = await db.restartEvent.groupBy({
    by: ["jobUid", "namespace", "jobName", "action"],
    _sum: { count: true },
  });
  const byUid = new Map<string, RestartCounts>();
  const byName = new Map<string, RestartCounts>();
  const add = (map: Map<string, RestartCounts>, key: string, group: (typeof groups)[number]) => {
    const entry = map.get(key) ?? noRestarts();
    const more = restartTotals([{ action: group.action, count: group._sum.count ?? 0 }]);
    map.set(key, {
      plr: entry.plr + more.plr,
      podReplacement: entry.podReplacement + more.podReplacement,
      jlr: entry.jlr + more.jlr,
    });
  };
  for (const group of groups) {
    if (group.jobUid !== null) add(byUid, group.jobUid, group);
    add(byName, `${group.namespace}/${group.jobName}`, group);
  }
  return { byUid, byName };
}

/** The jobs the caller may see (`visible`: server/services/access/job-access.ts `readableNamespaces`). */
export async function listJobRows(
  db: Db,
  source: ClusterSource,
  visible: (namespace: string) => boolean,
): Promise<JobRow[]> {
  const [jobs, teams, restarts] = await Promise.all([
    source.jobs().catch((error: unknown) => {
      throw toAppError(error);
    }),
    teamsByNamespace(db),
    restartCounts(db),
  ]);
  return jobs
    .filter((live) => visible(live.namespace))
    .map((live) => {
      const key = `${live.namespace}/${live.name}`;
      return {
        namespace: live.namespace,
        name: live.name,
        team: teams.get(live.namespace)?.name ?? null,
        ...jobSummaryParts(live),
        priorityClass: live.priorityClass,
        gpus: live.gpus,
        restarts:
          (live.uid === undefined ? restarts.byName.get(key) : restarts.byUid.get(live.uid)) ?? noRestarts(),
        createdAt: live.createdAt,
      };
    })
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/**
 * One page built per job per 200 ms however many viewers watch it (TVs, several tabs): the operator's
 * detail, the nodes, the teams and the restart rows are read once for all of them, through the live hub's
 * one cache (which also drops pages nobody asks for any more).
 */
const PAGE_TTL_MS = 200;

export function jobPage(db: Db, source: ClusterSource, ref: JobRef): Promise<JobPage> {
  return liveHub().cached(
    `jobs.page-read:${sourceId(source)}:${ref.namespace}/${ref.name}`,
    PAGE_TTL_MS,
    () => buildJobPage(db, source, ref),
  );
}

async function buildJobPage(db: Db, source: ClusterSource, ref: JobRef): Promise<JobPage> {
  const [detail, nodes, teams] = await Promise.all([
    source.job(ref).catch((error: unknown) => {
      throw toAppError(error);
    }),
    source.nodes().catch(() => []),
    teamsByNamespace(db),
  ]);
  if (!detail) throw new AppError("NOT_FOUND", `job ${ref.namespace}/${ref.name} not found`);
  const { live } = detail;
  // This run's records only (a resubmitted name starts clean); every run's from an operator sending no uid.
  // The operator's answer carries them already: read them here only for a source that sends none.
  const [rows, scaling] = await Promise.all([
    detail.restarts ??
      listRestartEvents(db, { namespace: ref.namespace, jobName: ref.name, jobUid: live.uid }),
    live.elastic && live.uid
      ? listScalingEvents(db, { namespace: ref.namespace, jobName: ref.name, jobUid: live.uid })
      : Promise.resolve([]),
  ]);
  const now = Date.now();
  const timeline = timelineEntries(rows);
  const team = teams.get(ref.namespace) ?? null;
  return {
    namespace: ref.namespace,
    name: ref.name,
    team: team?.name ?? null,
    teamId: team?.id ?? null,
    ...jobSummaryParts(live),
    restarts: restartTotals(rows.map((row) => ({ action: row.action, count: row.count }))),
    priorityClass: live.priorityClass,
    gpus: live.gpus,
    restartCount: live.restartCount,
    recovering: live.recovery ? `${live.recovery.action} (${live.recovery.stage})` : null,
    createdAt: live.createdAt,
    topology: topologyView(live, nodes, timeline.at(-1) ?? null, now),
    timeline,
    totals: jobTotalsView(live, timeline, now),
    events: detail.events.slice(-50),
    logRules: detail.logRules,
    updatedAt: live.updatedAt,
    elastic: live.elastic ?? null,
    scaling,
    ...policyParts(detail.policy),
  };
}

/** The job page's policy parts (issue 12); the defaults where the source tells nothing of policies. */
function policyParts(
  policy: JobPolicyView | null,
): Pick<JobPage, "resourceVersion" | "appliedPolicy" | "shadow" | "verdicts" | "pendingRestart"> {
  if (!policy)
    return { resourceVersion: null, appliedPolicy: null, shadow: null, verdicts: [], pendingRestart: false };
  const verdicts = shadowEntries(policy.verdicts);
  return {
    resourceVersion: policy.resourceVersion,
    appliedPolicy: policy.applied,
    shadow: policy.shadow ? { ...policy.shadow, verdicts } : null,
    verdicts,
    pendingRestart: policy.pendingRestart,
  };
}

export type LogLine = { text: string; matches: string[] };

/**
 * The tail of one rank's output (the agent prefixes each rank's lines with `[default<localRank>]:`), each
 * line with the rules it makes act (log-matcher-rules.ts: a fault, a metric past its threshold, a stop;
 * a hang rule's every heartbeat is not marked). The patterns run in a worker (log-matcher.ts), never on
 * this event loop. `pod` must come from the job's own pods (the router checks it against the job's page).
 */
export async function rankLogs(
  source: ClusterSource,
  ref: JobRef,
  opts: { pod: string; localRank: number; tail: number; rules: readonly PageLogRule[] },
): Promise<LogLine[]> {
  const text = await source.logs(ref, opts.pod, opts.tail * 16).catch((error: unknown) => {
    throw toAppError(error);
  });
  const prefix = `[default${opts.localRank}]:`;
  const bodies = text
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .slice(-opts.tail)
    .map((line) => line.slice(prefix.length));
  const matches = await matchLogLines({ rules: markingRules(opts.rules), lines: bodies });
  return bodies.map((body, index) => ({ text: body, matches: matches[index] ?? [] }));
}
