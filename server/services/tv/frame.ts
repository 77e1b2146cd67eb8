import { isNodeHealthy } from "@/server/cluster/types";
import type { TvView } from "@/server/domain/access/share";
import { timelineTotals } from "@/server/domain/console/timeline";
import { clusterGpus, type JobCounts, jobCounts, type TeamGpuRow } from "@/server/domain/tv/cluster";
import { type Incidents, incidentsOf } from "@/server/domain/tv/incidents";
import { type TvJobRow, tvJobList } from "@/server/domain/tv/jobs";
import { type ReliabilityStats, reliabilityOf } from "@/server/domain/tv/reliability";
import { namespaceFilter, type TvScope } from "@/server/domain/tv/scope";
import type { MetricsResult } from "@/server/metrics/series";
import { consoleBuild } from "./build";
import { runKey, type TvReads } from "./reads";
import { throughputOf } from "./throughput";

/**
 * What a TV view shows, assembled per scope from the shared reads (server/services/tv/reads.ts). Small by
 * construction (no per-rank data, lists capped, chart points thinned), so the stream sends whole frames.
 */
type FrameBase = {
  /** The console build that assembled it: a TV reloads itself when this changes. */
  build: string;
  generatedAt: number;
};

export type ClusterFrame = FrameBase & {
  view: "cluster";
  teams: TeamGpuRow[];
  moreTeams: number;
  /** GPUs in use by the teams past `teams` (so the bars and "and N more" add up to `gpus.inUse`). */
  moreTeamsGpus: number;
  counts: JobCounts;
  /** GPUs on healthy nodes, and in use in scope: the sum of the bars (clusterGpus), never a second count. */
  gpus: { capacity: number; inUse: number };
};
export type JobsFrame = FrameBase & {
  view: "jobs";
  counts: JobCounts;
  jobs: TvJobRow[];
  more: number;
  /** The cluster's goodput as training progress: every listed job's, weighted by its GPUs (tvJobList); null with none. */
  goodput: number | null;
};
export type ReliabilityFrame = FrameBase & {
  view: "reliability";
  stats: ReliabilityStats;
  throughput: MetricsResult;
};
export type IncidentsFrame = FrameBase & { view: "incidents"; incidents: Incidents };
export type TvFrame = ClusterFrame | JobsFrame | ReliabilityFrame | IncidentsFrame;

type FrameArgs = { reads: TvReads; scope: TvScope; now: number };

async function visibleNamespaces(args: FrameArgs): Promise<(namespace: string) => boolean> {
  const teams = await args.reads.teams();
  return namespaceFilter(args.scope, new Map(teams.map((team) => [team.namespace, team.id])));
}

async function scopedJobRows(args: FrameArgs) {
  const [rows, visible] = await Promise.all([args.reads.jobRows(), visibleNamespaces(args)]);
  return rows.filter((row) => visible(row.namespace));
}

async function clusterFrame(args: FrameArgs): Promise<Omit<ClusterFrame, keyof FrameBase>> {
  const [teams, capacities, rows, nodes] = await Promise.all([
    args.reads.teams(),
    args.reads.capacities(),
    scopedJobRows(args),
    args.reads.nodes(),
  ]);
  const gpus = clusterGpus({ teams, capacities, scope: args.scope, jobs: rows });
  return {
    view: "cluster",
    teams: gpus.teams,
    moreTeams: gpus.more,
    moreTeamsGpus: gpus.moreGpus,
    counts: jobCounts(rows),
    gpus: {
      capacity: nodes.filter(isNodeHealthy).reduce((sum, node) => sum + node.gpus, 0),
      inUse: gpus.inUse,
    },
  };
}

const NOT_STARTED = new Set(["Pending", "Starting"]);

/**
 * Whether a job's goodput applies here: not while it waits for admission or its first pods (its lifetime
 * would count as all good, "100 %"); a job pending again after a fault has a run to measure. Not for a
 * failed run either: its run has ended and its restart rows are not read for the wall (runTimelines reads
 * live runs), so its lifetime would again count as all good, even for a job that never trained.
 */
const hasRun = (phase: string, timeline: readonly unknown[]) =>
  phase !== "Failed" && (!NOT_STARTED.has(phase) || timeline.length > 0);

async function jobsFrame(args: FrameArgs): Promise<Omit<JobsFrame, keyof FrameBase>> {
  const [rows, live, timelines, teams] = await Promise.all([
    scopedJobRows(args),
    args.reads.liveJobs(),
    args.reads.runTimelines(),
    args.reads.teams(),
  ]);
  const displayName = new Map(teams.map((team) => [team.name, team.displayName || team.name]));
  const liveByName = new Map(live.map((job) => [`${job.namespace}/${job.name}`, job]));
  const list = tvJobList(
    rows.map((row) => {
      const job = liveByName.get(`${row.namespace}/${row.name}`);
      const timeline = job ? (timelines.get(runKey(job)) ?? []) : [];
      const totals = timelineTotals(timeline, { startedAt: row.createdAt || null, now: args.now });
      return {
        namespace: row.namespace,
        name: row.name,
        team: row.team === null ? null : (displayName.get(row.team) ?? row.team),
        phase: row.phase,
        status: row.status,
        gpus: row.gpus,
        ranksHealthy: row.ranksHealthy,
        ranksTotal: row.ranksTotal,
        restarts: row.restarts.plr + row.restarts.podReplacement + row.restarts.jlr,
        goodput:
          totals.goodput === null || !hasRun(row.phase, timeline)
            ? null
            : Math.round(totals.goodput * 10_000) / 10_000,
      };
    }),
  );
  return { view: "jobs", counts: jobCounts(rows), ...list };
}

async function reliabilityFrame(args: FrameArgs): Promise<Omit<ReliabilityFrame, keyof FrameBase>> {
  const [faults, visible, teams] = await Promise.all([
    args.reads.faultsLastDay(),
    visibleNamespaces(args),
    args.reads.teams(),
  ]);
  const namespaces = args.scope.all
    ? ("all" as const)
    : teams.filter((team) => visible(team.namespace)).map((team) => team.namespace);
  return {
    view: "reliability",
    stats: reliabilityOf(
      faults.filter((entry) => visible(entry.namespace)),
      args.now,
    ),
    throughput: await throughputOf({ namespaces, now: args.now }),
  };
}

async function incidentsFrame(args: FrameArgs): Promise<Omit<IncidentsFrame, keyof FrameBase>> {
  const [jobs, nodes, teams] = await Promise.all([
    args.reads.liveJobs(),
    args.reads.nodes(),
    args.reads.teams(),
  ]);
  const teamOfNamespace = new Map(
    teams.map((team) => [team.namespace, { id: team.id, name: team.displayName || team.name }]),
  );
  return {
    view: "incidents",
    incidents: incidentsOf({ jobs, nodes, scope: args.scope, teamOfNamespace, now: args.now }),
  };
}

const ASSEMBLE: {
  [V in TvView]: (args: FrameArgs) => Promise<Omit<Extract<TvFrame, { view: V }>, keyof FrameBase>>;
} = {
  cluster: clusterFrame,
  jobs: jobsFrame,
  reliability: reliabilityFrame,
  incidents: incidentsFrame,
};

/** One view's frame for one scope, now. */
export async function loadTvFrame(args: { reads: TvReads; scope: TvScope; view: TvView }): Promise<TvFrame> {
  const now = Date.now();
  const body = await ASSEMBLE[args.view]({ reads: args.reads, scope: args.scope, now });
  return { ...body, build: consoleBuild(), generatedAt: now } as TvFrame;
}
