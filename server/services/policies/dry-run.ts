import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import type { DryRunResult } from "@/server/domain/policy";
import { AppError } from "@/server/errors";
import { requireReadable } from "@/server/services/access/job-access";
import type { SessionUser } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { resolveLogTarget } from "@/server/services/jobs/log-target";
import { jobPage, rankLogs, toAppError } from "@/server/services/jobs/queries";
import { listRestartEvents, type RestartEventRow } from "@/server/services/restart-events/queries";
import { runDryRun } from "./dry-run-runner";
import { historyOf } from "./history";

/**
 * A dry-run of a policy (issue 12) over pasted log text or the recent output of one rank of a running job
 * (read as the jobs router's `logs` reads it, authorised as reading that job), with the job's restart
 * history (this run's restart timeline) deciding what the restart policy would do next. The evaluation
 * itself runs in a worker thread (dry-run-runner.ts).
 */

export type DryRunSourceInput =
  | { kind: "text"; text: string; intervalMs?: number | undefined }
  | { kind: "rank"; namespace: string; name: string; rank: number; tail: number };

/** One rank's recent output, lines as the rank printed them (the agent's `[defaultN]:` prefix removed). */
async function rankText(
  db: Db,
  source: ClusterSource,
  args: { user: SessionUser; ref: JobRef; rank: number; tail: number },
): Promise<string> {
  await requireReadable(db, args.user, args.ref);
  const page = await jobPage(db, source, args.ref);
  const target = resolveLogTarget(page, { rank: args.rank });
  const lines = await rankLogs(source, args.ref, { ...target, tail: args.tail, rules: [] });
  return lines.map((line) => line.text).join("\n");
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

export async function dryRunPolicy(
  db: Db,
  args: {
    cluster: () => Promise<ClusterSource>;
    user: SessionUser;
    runPolicy: RunPolicy;
    source: DryRunSourceInput;
    job: JobRef | undefined;
  },
): Promise<DryRunResult> {
  const { user, source: input } = args;
  const rankRef = input.kind === "rank" ? { namespace: input.namespace, name: input.name } : undefined;
  const historyRef = args.job ?? rankRef;
  let cluster: Promise<ClusterSource> | null = null;
  const source = () => {
    cluster ??= args.cluster();
    return cluster;
  };
  const logText =
    input.kind === "text"
      ? input.text
      : await rankText(db, await source(), {
          user,
          ref: { namespace: input.namespace, name: input.name },
          rank: input.rank,
          tail: input.tail,
        });
  const rows = historyRef ? await restartRows(db, await source(), { user, ref: historyRef }) : null;
  return runDryRun({
    runPolicy: args.runPolicy,
    logText,
    ...(input.kind === "text" && input.intervalMs !== undefined ? { intervalMs: input.intervalMs } : {}),
    ...(rows ? { history: historyOf(rows) } : {}),
  });
}
