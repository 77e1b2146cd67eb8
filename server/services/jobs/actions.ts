import type { ClusterSource, SourceAction } from "@/server/services/jobs/gateway/types";
import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { hasTeamRole } from "@/server/domain/access/roles";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/services/audit/mutations";
import type { SessionUser } from "@/server/services/auth/sessions";
import { toAppError } from "./queries";

/**
 * The console's actions on a job, authorised on the server (an engineer of the job's team, or a cluster
 * admin) and written to the audit log before they are sent to the cluster.
 */
export type JobActionInput =
  | { action: "restart-rank"; rank: number }
  | { action: "restart-pod"; pod: string }
  | { action: "restart-job" }
  | { action: "suspend" }
  | { action: "resume" }
  | { action: "delete" }
  | { action: "inject-fault"; kind: "crash" | "hang" | "nan" | "slow" | "node"; rank?: number };

/** Whether the user may act on jobs in this namespace (the team owning it, by namespace). */
export async function canActOn(db: Db, user: SessionUser | null, namespace: string): Promise<boolean> {
  if (!user) return false;
  const team = await db.team.findUnique({ where: { namespace }, select: { id: true } });
  if (!team) return hasTeamRole(user.memberships, { teamId: "", atLeast: "cluster_admin" });
  return hasTeamRole(user.memberships, { teamId: team.id, atLeast: "engineer" });
}

function send(source: ClusterSource, ref: JobRef, input: JobActionInput, by: string): Promise<void> {
  switch (input.action) {
    case "delete":
      return source.delete(ref);
    case "inject-fault":
      if (source.mode !== "local")
        throw new AppError("CONFLICT", "fault injection exists on the local back end only");
      return source.injectFault(ref, {
        kind: input.kind,
        ...(input.rank === undefined ? {} : { rank: input.rank }),
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
  if (!(await canActOn(db, user, ref.namespace))) {
    throw new AppError(
      "FORBIDDEN",
      `only an engineer of the team owning ${ref.namespace} may ${input.action} its jobs`,
    );
  }
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
