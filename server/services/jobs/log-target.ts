import type { JobPage } from "@/server/domain/jobs/pages";
import { AppError } from "@/server/errors";

/**
 * Whose log the console's logs view reads, from a closed set (issue 16, item 2): a rank of the job, whose
 * pod and local rank come from the job's current page, or a pod that is one of the job's pods on that page.
 * Anything else is refused before the operator is asked: a pod name never reaches it from the request
 * unless the job has that pod.
 */

export type LogTargetInput = { pod?: string; rank?: number; localRank?: number };
export type LogTarget = { pod: string; localRank: number };

const jobName = (page: JobPage) => `${page.namespace}/${page.name}`;

function byRank(page: JobPage, rank: number): LogTarget {
  const found = page.topology.ranks.find((view) => view.rank === rank);
  if (!found) throw new AppError("NOT_FOUND", `rank: ${rank} is not a rank of job ${jobName(page)}`);
  return { pod: found.pod, localRank: found.localRank };
}

function byPod(page: JobPage, pod: string, localRank: number): LogTarget {
  const found = page.topology.pods.find((view) => view.name === pod);
  if (!found) throw new AppError("NOT_FOUND", `pod: "${pod}" is not one of job ${jobName(page)}'s pods`);
  if (found.ranks.length > 0 && localRank >= found.ranks.length) {
    throw new AppError(
      "INVALID",
      `localRank: pod ${pod} has local ranks 0-${found.ranks.length - 1}; got ${localRank}`,
    );
  }
  return { pod, localRank };
}

export function resolveLogTarget(page: JobPage, input: LogTargetInput): LogTarget {
  if (input.rank !== undefined) return byRank(page, input.rank);
  if (input.pod === undefined) throw new AppError("INVALID", "pod: name a rank or one of the job's pods");
  return byPod(page, input.pod, input.localRank ?? 0);
}
