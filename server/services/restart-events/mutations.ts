import type { RestartAction } from "@/generated/prisma/enums";
import type { Db } from "@/server/db/client";

/** The restart timeline: one row per fault, written when it is detected and completed when it is over. */
export async function recordFault(
  db: Db,
  fault: {
    namespace: string;
    jobName: string;
    ranks: number[];
    pods: string[];
    node: string | null;
    reason: string;
    faultAt: Date;
    detectedAt: Date;
    action: RestartAction;
    message: string;
  },
): Promise<string> {
  const { namespace, jobName, reason, ...rest } = fault;
  const row = await db.restartEvent.create({
    data: {
      namespace,
      jobName,
      faultReason: reason,
      ...rest,
      outcome: fault.action === "FAIL" ? "failed" : "pending",
    },
    select: { id: true },
  });
  return row.id;
}

export async function completeFault(
  db: Db,
  id: string,
  result: { outcome: "recovered" | "failed"; recoveredAt: Date | null; message: string },
): Promise<void> {
  await db.restartEvent.updateMany({ where: { id, outcome: "pending" }, data: result });
}
