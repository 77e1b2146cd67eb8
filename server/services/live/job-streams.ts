import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { JobPage, JobRow } from "@/server/domain/jobs/pages";
import { diffPage, type JobPatch } from "@/server/domain/jobs/patch";
import type { ListDiff } from "@/server/domain/live/list-diff";
import { jobRowList } from "@/server/domain/live/lists";
import { diffTail, type TailDiff } from "@/server/domain/live/tail-diff";
import { AppError } from "@/server/errors";
import { stillReadable } from "@/server/services/access/job-access";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { type LogTargetInput, resolveLogTarget } from "@/server/services/jobs/log-target";
import { jobPage, type LogLine, listJobRows, rankLogs } from "@/server/services/jobs/queries";
import { liveHub } from "@/server/services/wiring";
import type { LiveMessage, LiveSource } from "./hub";
import { rechecked } from "./rechecked";
import {
  RECHECK_ACCESS_MS,
  type ReadScope,
  type ScopedSession,
  SHARED_READ_TTL_MS,
  scopedStream,
  sharedReads,
  sourceId,
} from "./scope";

/**
 * The jobs' live views, each one shared loop per data source (server/services/live/hub.ts): the jobs list
 * per readable scope, a job's page per job, a rank's log per job, pod and rank. Every stream asks again every
 * RECHECK_ACCESS_MS whether its session may still read it, and ends (UNAUTHORIZED) once it may not.
 */

/** How often the jobs list is looked at; the cluster's rows are read once for every scope. */
export const LIST_INTERVAL_MS = 1000;
/** How often a watched job page is looked at; changes within one interval go out as one diff. */
export const PAGE_INTERVAL_MS = 250;
/** How often a watched rank's log tail is read. */
export const LOG_INTERVAL_MS = 1000;

type Viewer = { db: Db; source: ClusterSource; signal: AbortSignal | undefined };

const lostJob = () =>
  new AppError("UNAUTHORIZED", "the session ended or lost access to this job: sign in again");

/** Every job of the cluster as a row, read once per SHARED_READ_TTL_MS for all scopes. */
function allJobRows(db: Db, source: ClusterSource): Promise<JobRow[]> {
  return liveHub().cached(`jobs.rows:${sourceId(source)}`, SHARED_READ_TTL_MS, () =>
    listJobRows(db, sharedReads(source), () => true),
  );
}

export function jobRowsSource(opts: {
  db: Db;
  source: ClusterSource;
  scope: ReadScope;
}): LiveSource<JobRow[], ListDiff<JobRow>> {
  const { db, source, scope } = opts;
  return {
    key: `jobs.list:${sourceId(source)}:${scope.key}`,
    intervalMs: LIST_INTERVAL_MS,
    load: async () => (await allJobRows(db, source)).filter((row) => scope.visible(row.namespace)),
    diff: jobRowList.diff,
  };
}

/** The rows a user may read, live: one loop per readable scope, started again when the scope changes. */
export function watchJobRows(
  session: ScopedSession & { source: ClusterSource },
): AsyncGenerator<LiveMessage<JobRow[], ListDiff<JobRow>>, void> {
  return scopedStream(session, (scope, signal) =>
    liveHub().stream(jobRowsSource({ db: session.db, source: session.source, scope }), signal),
  );
}

export function jobPageSource(opts: {
  db: Db;
  source: ClusterSource;
  ref: JobRef;
}): LiveSource<JobPage, JobPatch> {
  const { db, source, ref } = opts;
  return {
    key: `jobs.page:${sourceId(source)}:${ref.namespace}/${ref.name}`,
    intervalMs: PAGE_INTERVAL_MS,
    load: () => jobPage(db, source, ref),
    diff: (previous, next) => diffPage(previous, next),
  };
}

/** A job's page, live: one loop per job for all its viewers; the caller checked the first read. */
export function watchJobPage(
  session: Viewer & { sessionToken: string | undefined; ref: JobRef },
): AsyncGenerator<LiveMessage<JobPage, JobPatch>, void> {
  const { db, source, ref } = session;
  return rechecked({
    signal: session.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => liveHub().stream(jobPageSource({ db, source, ref }), signal),
    recheck: async () => {
      if (!(await stillReadable(db, { token: session.sessionToken, ref }))) throw lostJob();
      return "keep";
    },
  });
}

export type RankLogInput = LogTargetInput & { job: JobRef; tail: number };

const targetKey = (input: RankLogInput) =>
  input.rank !== undefined ? `rank:${input.rank}` : `pod:${input.pod ?? ""}/${input.localRank ?? 0}`;

/** The tail of a rank's output, found on the job's current page (a replaced pod is followed by rank). */
async function readRankLog(db: Db, source: ClusterSource, input: RankLogInput): Promise<LogLine[]> {
  const page = await jobPage(db, source, input.job);
  const target = resolveLogTarget(page, input);
  return rankLogs(source, input.job, { ...target, tail: input.tail, rules: page.logRules });
}

export function rankLogSource(opts: {
  db: Db;
  source: ClusterSource;
  input: RankLogInput;
}): LiveSource<LogLine[], TailDiff<LogLine>> {
  const { db, source, input } = opts;
  return {
    key: `jobs.logs:${sourceId(source)}:${input.job.namespace}/${input.job.name}:${targetKey(input)}:${input.tail}`,
    intervalMs: LOG_INTERVAL_MS,
    load: () => readRankLog(db, source, input),
    diff: diffTail,
  };
}

/** A rank's log tail, pushed when it changes; the caller checked access and the target. */
export function watchRankLog(
  session: Viewer & { sessionToken: string | undefined; input: RankLogInput },
): AsyncGenerator<LiveMessage<LogLine[], TailDiff<LogLine>>, void> {
  const { db, source, input } = session;
  return rechecked({
    signal: session.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => liveHub().stream(rankLogSource({ db, source, input }), signal),
    recheck: async () => {
      if (!(await stillReadable(db, { token: session.sessionToken, ref: input.job }))) throw lostJob();
      return "keep";
    },
  });
}
