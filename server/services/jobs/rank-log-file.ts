import type { z } from "zod";
import type { Db } from "@/server/db/client";
import { RANK_OUTPUT_LIMITS } from "@/server/domain/operator-api/rank-output";
import { AppError } from "@/server/errors";
import { requireReadable } from "@/server/services/access/job-access";
import type { SessionUser } from "@/server/services/auth/sessions";
import { type ClusterSource, SourceError } from "./gateway/types";
import { jobLogsInputSchema } from "./jobs.schema";
import { type LogTarget, resolveLogTarget } from "./log-target";
import { jobPage, toAppError } from "./queries";

/**
 * A rank's whole log as a file (the rank panel's "Download log"; app/api/jobs/[namespace]/[name]/log):
 * read as jobs.logs is, through the same checks (server/services/access/job-access.ts requireReadable, then
 * the target resolved on the job's page, log-target.ts), but the rank's output since its current attempt
 * started (ClusterSource.rankOutput, up to RANK_OUTPUT_LIMITS) instead of the view's 200-line tail. A back
 * end that cannot read one rank's output (501) gives the pod's log, as much as the operator sends (5,000
 * lines), cut to this rank's lines.
 */

const POD_LOG_LINES = 5000;

/** The query string of a download: `rank=3`, or `pod=…&localRank=…`. */
export function rankLogFileInput(ref: { namespace: string; name: string }, params: URLSearchParams) {
  const number = (key: string) => {
    const value = params.get(key);
    return value === null || value.trim() === "" ? undefined : Number(value);
  };
  const parsed = jobLogsInputSchema.safeParse({
    job: ref,
    rank: number("rank"),
    pod: params.get("pod") ?? undefined,
    localRank: number("localRank"),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "query";
    throw new AppError("INVALID", `${field}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

export type RankLogInput = z.output<typeof jobLogsInputSchema>;

export type RankLogFile = { filename: string; text: string };

async function rankLines(source: ClusterSource, input: RankLogInput, target: LogTarget) {
  try {
    const output = await source.rankOutput(input.job, target);
    const lines = output.lines.map((line) => line.text);
    if (output.overLimit)
      lines.push(
        `[rebound] output past ${RANK_OUTPUT_LIMITS.lines.toLocaleString("en-US")} lines or ${RANK_OUTPUT_LIMITS.bytes / 1024 / 1024} MiB left out`,
      );
    return lines;
  } catch (error) {
    if (!(error instanceof SourceError && error.status === 501)) throw toAppError(error);
  }
  const text = await source.logs(input.job, target.pod, POD_LOG_LINES).catch((error: unknown) => {
    throw toAppError(error);
  });
  const prefix = `[default${target.localRank}]:`;
  return text
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

const fileSafe = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, "_");

export async function rankLogFile(
  db: Db,
  source: ClusterSource,
  user: SessionUser,
  input: RankLogInput,
): Promise<RankLogFile> {
  await requireReadable(db, user, input.job);
  const page = await jobPage(db, source, input.job);
  const target = resolveLogTarget(page, input);
  const lines = await rankLines(source, input, target);
  const rank = page.topology.ranks.find(
    (view) => view.pod === target.pod && view.localRank === target.localRank,
  )?.rank;
  const who = rank === undefined ? `${target.pod}-local-rank-${target.localRank}` : `rank-${rank}`;
  return {
    filename: fileSafe(`${input.job.namespace}_${input.job.name}_${who}.log`),
    text: lines.length === 0 ? "" : `${lines.join("\n")}\n`,
  };
}
