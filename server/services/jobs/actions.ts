import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { requireActionable, requireFaultable } from "@/server/services/access/job-access";
import type { SessionUser } from "@/server/services/auth/sessions";
import type { ClusterSource, SourceAction } from "@/server/services/jobs/gateway/types";
import { writeAudit } from "@/server/store/audit/mutations";
import { toAppError } from "./queries";

/**
 * The console's actions on a job, authorised on the server (server/services/access/job-access.ts: an
 * engineer of the job's team, or a cluster admin) and written to the audit log before they are sent to the cluster.
 */
export type JobActionInput =
  | { action: "restart-rank"; rank: number }
  | { action: "restart-pod"; pod: string }
  | { action: "restart-job" }
  | { action: "suspend" }
  | { action: "resume" }
  | { action: "delete" }
  | { action: "inject-fault"; kind: "crash" | "hang" | "nan" | "slow" | "node"; rank?: number };

function send(source: ClusterSource, ref: JobRef, input: JobActionInput, by: string): Promise<void> {
  switch (input.action) {
    case "delete":
      return source.delete(ref, by);
    case "inject-fault":
      if (source.mode !== "local")
        throw new AppError("CONFLICT", "fault injection exists on the local back end only");
      return source.injectFault(ref, {
        kind: input.kind,
        ...(input.rank === undefined ? {} : { rank: input.rank }),
        by,
      });
    default:
      return source.act(ref, { ...input, by } as SourceAction);
  }
}

export async function runJobAction(
  db: Db,
  source: ClusterSource,
  opts: { user: SessionUser; ref: JobRef; input: JobActionInput },
): Promise<void> {
  const { user, ref, input } = opts;
  if (input.action === "inject-fault") await requireFaultable(db, user, { ref, kind: input.kind });
  else await requireActionable(db, user, { ref, action: input.action });
  await db.$transaction((tx) =>
    writeAudit(tx, {
      userId: user.id,
      action: `job.${input.action}`,
      target: `${ref.namespace}/${ref.name}`,
      details: input,
    }),
  );
  await send(source, ref, input, user.email).catch((error: unknown) => {
    throw toAppError(error);
  });
}
