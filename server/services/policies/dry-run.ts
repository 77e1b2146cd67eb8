import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import { AppError } from "@/server/errors";
import { requireReadable } from "@/server/services/access/job-access";
import type { SessionUser } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { jobPage, toAppError } from "@/server/services/jobs/queries";
import { listRestartEvents, type RestartEventRow } from "@/server/store/restart-events/queries";
import { runDryRun } from "./dry-run-runner";
import { historyOf } from "./history";
import { asLive, type LiveRun, liveRankRun, type PolicyDryRun } from "./rank-dry-run";

/**
 * A dry-run of a policy (issue 12) over pasted log text or the output of one rank of a running job since
 * its attempt started, each line at the time it arrived (rank-dry-run.ts; authorised as reading that job),
 * with the job's restart history (this run's restart timeline) deciding what the restart policy would do
 * next. The evaluation itself runs in a worker thread (dry-run-runner.ts).
 */

export type DryRunSourceInput =
  | { kind: "text"; text: string; intervalMs?: number | undefined }
  | { kind: "rank"; namespace: string; name: string; rank: number };

/** The rank's output since its attempt started, read as reading that job (rank-dry-run.ts). */
async function rankRun(
  db: Db,
  source: ClusterSource,
  args: { user: SessionUser; ref: JobRef; rank: number },
): Promise<LiveRun> {
  await requireReadable(db, args.user, args.ref);
  const page = await jobPage(db, source, args.ref);
  return liveRankRun(source, { page, ref: args.ref, rank: args.rank });
}

/** This run's restart records of a job the user may read (every run's where the operator sends no uid). */
async function restartRows(
  db: Db,
  source: ClusterSource,
  args: { user: SessionUser; ref: JobRef },
): Promise<RestartEventRow[]> {
  await requireReadable(db, args.user, args.ref);
  const detail = await source.job(args.ref).catch((error: unknown) => {
    throw toAppError(error);
  });
  if (!detail) throw new AppError("NOT_FOUND", `job ${args.ref.namespace}/${args.ref.name} not found`);
  return listRestartEvents(db, {
    namespace: args.ref.namespace,
    jobName: args.ref.name,
    ...(detail.live.uid === undefined ? {} : { jobUid: detail.live.uid }),
  });
}

/** The cluster source, asked for once and only when needed. */
function once(cluster: () => Promise<ClusterSource>): () => Promise<ClusterSource> {
  let source: Promise<ClusterSource> | null = null;
  return () => {
    source ??= cluster();
    return source;
  };
}

export async function dryRunPolicy(
  db: Db,
  args: {
    cluster: () => Promise<ClusterSource>;
    user: SessionUser;
    runPolicy: RunPolicy;
    source: DryRunSourceInput;
    job: JobRef | undefined;
  },
): Promise<PolicyDryRun> {
  const { user, source: input } = args;
  const source = once(args.cluster);
  const rankRef = input.kind === "rank" ? { namespace: input.namespace, name: input.name } : undefined;
  const historyRef = args.job ?? rankRef;
  const live =
    input.kind === "rank"
      ? await rankRun(db, await source(), {
          user,
          ref: { namespace: input.namespace, name: input.name },
          rank: input.rank,
        })
      : null;
  const rows = historyRef ? await restartRows(db, await source(), { user, ref: historyRef }) : null;
  const text = input.kind === "text" ? { logText: input.text, intervalMs: input.intervalMs } : null;
  const result = await runDryRun({
    runPolicy: args.runPolicy,
    ...(live?.input ?? { logText: text?.logText ?? "" }),
    ...(text?.intervalMs === undefined ? {} : { intervalMs: text.intervalMs }),
    ...(rows ? { history: historyOf(rows) } : {}),
  });
  return live ? asLive(result, live) : { ...result, rank: null };
}
