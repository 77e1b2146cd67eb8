import { randomUUID } from "node:crypto";
import type { ManualRestart } from "@/server/operator/requests";
import type { JobContext } from "./deps";
import type { PendingRecord } from "./job-state";
import { decide, enterRestart, type RestartPlan } from "./recovery";

export const MANUAL_REASON = "ManualRestart";

/** What a person's restart does: PLR of every process, one pod replaced (then PLR), or every pod recreated. */
function manualPlan(
  ctx: JobContext,
  request: ManualRestart,
): RestartPlan & { ranks: number[]; node: string | null } {
  const none = { avoidNodes: [], useSpare: null };
  switch (request.kind) {
    case "restart-rank":
      return { action: "PLR", stage: "stopping", pods: [], ranks: [request.rank], node: null, ...none };
    case "restart-pod": {
      const node = ctx.obs.pods.find((view) => view.expected.name === request.pod)?.pod?.node ?? null;
      return { action: "POD_REPLACEMENT", stage: "replacing", pods: [request.pod], ranks: [], node, ...none };
    }
    case "restart-job": {
      const pods = ctx.obs.pods.map((view) => view.expected.name);
      return { action: "JLR", stage: "replacing", pods, ranks: [], node: null, ...none };
    }
    default:
      return request satisfies never;
  }
}

/**
 * A restart someone asked for (the console's actions): recorded on the restart timeline with reason
 * ManualRestart, carried out like a fault's (decision saved first), but not counted against the restart
 * policy: it is not a fault.
 */
export async function beginManualRestart(ctx: JobContext, request: ManualRestart): Promise<void> {
  const now = ctx.deps.clock();
  const { ranks, node, ...plan } = manualPlan(ctx, request);
  const message = `${request.kind} requested by ${request.by}`;
  const record: PendingRecord = {
    id: randomUUID(),
    ranks,
    pods: plan.pods,
    node,
    reason: MANUAL_REASON,
    faultAt: now,
    detectedAt: now,
    action: plan.action,
    message,
    event: { type: "Normal", message },
    detection: false,
    fail: null,
    supersedes: null,
  };
  enterRestart(ctx, { record, plan });
  await decide(ctx, record);
}
