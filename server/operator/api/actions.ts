import type { JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { JobAction } from "@/server/domain/operator-api/contract";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { HttpError } from "./http-utils";

/**
 * The console's actions on a job, as the operator carries them out: restarts wait for the job's next
 * reconcile (server/operator/requests.ts); suspend and resume set `spec.runPolicy.suspend`. Who may ask is
 * decided before this runs (authorize.ts: `patch` on the job); here the operator checks that the action
 * makes sense for the job as it is now. `by` names whom the client acts for, for the audit log.
 */
export { type JobAction, jobActionSchema } from "@/server/domain/operator-api/contract";

function checkRestart(deps: OperatorDeps, ref: JobRef, action: JobAction): void {
  const live = deps.live.get(jobKey(ref));
  if (!live) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  if (live.phase !== "Running")
    throw new HttpError(409, `job ${jobKey(ref)} is ${live.phase}: restarts are taken while it runs`);
  if (action.action === "restart-rank" && action.rank >= live.ranksTotal)
    throw new HttpError(400, `rank: the job has ranks 0-${live.ranksTotal - 1}, got ${action.rank}`);
  if (action.action === "restart-pod" && !live.pods.some((pod) => pod.name === action.pod))
    throw new HttpError(400, `pod: ${action.pod} is not one of the job's pods`);
}

export async function runJobAction(deps: OperatorDeps, ref: JobRef, action: JobAction): Promise<void> {
  switch (action.action) {
    case "suspend":
    case "resume":
      if (!(await deps.backend.setSuspended(ref, action.action === "suspend")))
        throw new HttpError(404, `job ${jobKey(ref)} not found`);
      return;
    case "restart-rank":
      checkRestart(deps, ref, action);
      return deps.requests.add(jobKey(ref), { kind: action.action, rank: action.rank, by: action.by });
    case "restart-pod":
      checkRestart(deps, ref, action);
      return deps.requests.add(jobKey(ref), { kind: action.action, pod: action.pod, by: action.by });
    case "restart-job":
      checkRestart(deps, ref, action);
      return deps.requests.add(jobKey(ref), { kind: action.action, by: action.by });
    default:
      return action satisfies never;
  }
}
