import type { IncomingMessage } from "node:http";
import { type JobRef, jobKey } from "@/server/cluster/types";
import type { RankOutputResponse } from "@/server/domain/operator-api/rank-output";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { HttpError } from "./http-utils";
import { podOfJob } from "./pod-param";

/**
 * `GET /api/v1/jobs/<ns>/<name>/rank-output?pod=<pod>&localRank=<n>`: one rank's output since its attempt
 * started, each line with when it arrived (server/domain/operator-api/rank-output.ts), for a dry-run on a
 * running rank. The pod must be one of the job's (as for its logs); the attempt's start on Kubernetes is
 * when the pod's agent last entered RUNNING, as this operator last saw it.
 */

function localRankOf(value: string | null): number {
  const localRank = value === null || !/^\d{1,5}$/.test(value) ? Number.NaN : Number(value);
  if (!Number.isInteger(localRank) || localRank > 65_535)
    throw new HttpError(
      400,
      `localRank: expected a whole number from 0 to 65535, got ${JSON.stringify(value)}`,
    );
  return localRank;
}

export async function rankOutput(
  input: { deps: OperatorDeps; req: IncomingMessage },
  ref: JobRef,
): Promise<{ status: number; body: RankOutputResponse }> {
  const { deps } = input;
  const url = new URL(input.req.url ?? "/", "http://operator");
  const localRank = localRankOf(url.searchParams.get("localRank"));
  const pod = await podOfJob(deps.backend, ref, url.searchParams.get("pod"));
  if (!deps.backend.rankOutput) throw new HttpError(501, "this back end cannot read a rank's output");
  const live = deps.live.get(jobKey(ref))?.pods.find((view) => view.name === pod);
  const output = await deps.backend.rankOutput(ref, pod, { localRank, since: live?.runningSince ?? null });
  return { status: 200, body: { pod, localRank, ...output } };
}
