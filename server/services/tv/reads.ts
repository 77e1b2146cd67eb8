import type { ClusterNode } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { teamCapacities } from "@/server/domain/governance";
import type { TeamCapacity } from "@/server/domain/governance/types";
import type { JobRow } from "@/server/domain/jobs/pages";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import { DAY_MS } from "@/server/domain/tv/reliability";
import { snapshotOf, teamNamespaces } from "@/server/services/governance/snapshot";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { timelineEntries } from "@/server/services/jobs/job-view";
import { listJobRows } from "@/server/services/jobs/queries";
import { sharedReads } from "@/server/services/live/scope";
import { liveHub } from "@/server/services/wiring";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { listRestartSummaries, type RestartSummaryRow } from "@/server/store/restart-events/queries";

/**
 * The reads behind every TV frame, each shared by all views and scopes through liveHub().cached: one read of
 * the cluster's jobs and nodes (sharedReads, with the jobs list and cluster page), teams, quotas and restart
 * rows per TTL, however many TVs and scopes watch. Each scope's loop then filters what it may show
 * (server/domain/tv).
 */
const LIVE_TTL_MS = 250;
const DB_TTL_MS = 1000;

export type TvTeamRow = { id: string; name: string; displayName: string; namespace: string };

export type TvReads = {
  teams(): Promise<TvTeamRow[]>;
  liveJobs(): Promise<LiveJob[]>;
  nodes(): Promise<ClusterNode[]>;
  jobRows(): Promise<JobRow[]>;
  capacities(): Promise<TeamCapacity[]>;
  /** Restart rows whose fault fell in the last 24 h, every namespace. */
  faultsLastDay(): Promise<Array<TimelineEntry & { namespace: string }>>;
  /** The restart timeline of every run that is not finished, by job uid (or `<namespace>/<name>` without one). */
  runTimelines(): Promise<Map<string, TimelineEntry[]>>;
};

function entryOf(row: RestartSummaryRow): TimelineEntry & { namespace: string } {
  const [entry] = timelineEntries([{ ...row, ranks: [], pods: [], message: "" }]);
  if (!entry) throw new Error("timelineEntries dropped a row");
  return { ...entry, namespace: row.namespace };
}

export const runKey = (job: { uid?: string | null; namespace: string; name: string }): string =>
  job.uid ?? `${job.namespace}/${job.name}`;

const FINISHED = new Set(["Succeeded", "Failed"]);

export function tvReads(args: { db: Db; cluster: () => Promise<ClusterSource> }): TvReads {
  const hub = liveHub();
  const { db } = args;
  /** The cluster's jobs and nodes, read once for every live view (the jobs list and cluster page too). */
  const sharedSource = async () => sharedReads(await args.cluster());
  const liveJobs = async () => (await sharedSource()).jobs();
  const nodes = async () => (await sharedSource()).nodes();
  return {
    liveJobs,
    nodes,
    teams: () =>
      hub.cached("tv:teams", DB_TTL_MS, () =>
        db.team.findMany({
          select: { id: true, name: true, displayName: true, namespace: true },
          orderBy: { name: "asc" },
        }),
      ),
    // The rows carry each job's restarts, read from Postgres: kept for less than a TV loop's interval, so a
    // fault the operator has recorded reaches the next frame instead of waiting out a row set up to one loop
    // old (bench:tv's node fault → jobs view was ~1.1 s p99 after detection with 500 ms). Healthy ranks come
    // counted from the operator's summary view, so a row set is cheap to rebuild.
    jobRows: () =>
      hub.cached("tv:job-rows", LIVE_TTL_MS, async () => listJobRows(db, await sharedSource(), () => true)),
    capacities: () =>
      hub.cached("tv:capacities", LIVE_TTL_MS, async () => {
        const [config, teamOfNamespace, liveNodes, jobs] = await Promise.all([
          loadGovernanceConfig(db),
          teamNamespaces(db),
          nodes(),
          liveJobs(),
        ]);
        return teamCapacities(
          snapshotOf({ config, nodes: liveNodes, jobs, teamOfNamespace, now: Date.now() }).snapshot,
        );
      }),
    faultsLastDay: () =>
      hub.cached("tv:faults-24h", DB_TTL_MS, async () => {
        const rows = await listRestartSummaries(db, { faultAt: { gt: new Date(Date.now() - DAY_MS) } });
        return rows.map(entryOf);
      }),
    runTimelines: () =>
      hub.cached("tv:run-timelines", DB_TTL_MS, async () => {
        const active = (await liveJobs()).filter((job) => !FINISHED.has(job.phase));
        const uids = active.flatMap((job) => (job.uid ? [job.uid] : []));
        const unnamed = active.filter((job) => !job.uid);
        const rows = await listRestartSummaries(db, {
          OR: [
            { jobUid: { in: uids } },
            ...unnamed.map((job) => ({ namespace: job.namespace, jobName: job.name })),
          ],
        });
        const byRun = new Map<string, TimelineEntry[]>();
        for (const row of rows) {
          const key = runKey({ uid: row.jobUid, namespace: row.namespace, name: row.jobName });
          const list = byRun.get(key) ?? [];
          list.push(entryOf(row));
          byRun.set(key, list);
        }
        return byRun;
      }),
  };
}
