import { type JobRef, jobKey } from "@/server/cluster/types";
import type { WhyPendingResponse } from "@/server/domain/operator-api/contract";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { HttpError } from "./http-utils";

/**
 * GET /api/v1/jobs/<ns>/<name>/why-pending: "why is this job pending", answered from the admission the
 * operator holds (server/operator/admission local.ts), so the console asks about one job instead of
 * fetching every live job and deciding the whole cluster again. Where the admission is Kueue's the operator
 * holds no such state: 501, and the console answers from its own snapshot.
 */
export async function whyPendingOf(deps: OperatorDeps, ref: JobRef) {
  const gate = deps.admission;
  if (!gate?.whyPending)
    throw new HttpError(
      501,
      "this operator does not decide admissions itself (no task governance, or Kueue's)",
    );
  const { governed, answer } = await gate.whyPending(jobKey(ref));
  const body: WhyPendingResponse = {
    governed,
    answer:
      answer === null
        ? null
        : {
            ...answer,
            shortfall: answer.shortfall.map((row) => ({ ...row })),
            ahead: [...answer.ahead],
            wouldRun: [...answer.wouldRun],
          },
  };
  return { status: 200, body };
}
