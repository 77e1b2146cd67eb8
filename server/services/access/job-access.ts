import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { canActOnTeam, canInjectFault, canReadTeam } from "@/server/domain/access/roles";
import { AppError } from "@/server/errors";
import { type SessionUser, userForToken } from "@/server/services/auth/sessions";

/**
 * The console's one rule of who may see and act on which job, by the team that owns the job's namespace
 * (server/domain/access/roles.ts: members read, engineers act, cluster admins do both everywhere). Every
 * read path (the jobs list, a job's page and its live stream, rank logs, metrics, the cluster page's job
 * names) and every action goes through here.
 */
export type Team = { id: string; name: string };

export async function teamsByNamespace(db: Db): Promise<Map<string, Team>> {
  const teams = await db.team.findMany({ select: { id: true, name: true, namespace: true } });
  return new Map(teams.map((team) => [team.namespace, { id: team.id, name: team.name }]));
}

/** A predicate over namespaces for filtering lists: which jobs this user may see. */
export async function readableNamespaces(db: Db, user: SessionUser): Promise<(namespace: string) => boolean> {
  const teams = await teamsByNamespace(db);
  return (namespace) => canReadTeam(user.memberships, teams.get(namespace)?.id ?? null);
}

export type JobAccess = { team: Team | null; canRead: boolean; canAct: boolean };

export async function jobAccess(db: Db, user: SessionUser, namespace: string): Promise<JobAccess> {
  const team = await db.team.findUnique({ where: { namespace }, select: { id: true, name: true } });
  return {
    team,
    canRead: canReadTeam(user.memberships, team?.id ?? null),
    canAct: canActOnTeam(user.memberships, team?.id ?? null),
  };
}

/**
 * The job's access for a read, or NOT_FOUND: another team's job is answered exactly as a job that does not
 * exist, so its name, state and existence do not leak.
 */
export async function requireReadable(db: Db, user: SessionUser, ref: JobRef): Promise<JobAccess> {
  const access = await jobAccess(db, user, ref.namespace);
  if (!access.canRead) throw new AppError("NOT_FOUND", `job ${ref.namespace}/${ref.name} not found`);
  return access;
}

/** For an action: NOT_FOUND when the job is not even readable, FORBIDDEN when it is but the role is short. */
export async function requireActionable(
  db: Db,
  user: SessionUser,
  opts: { ref: JobRef; action: string },
): Promise<JobAccess> {
  const access = await requireReadable(db, user, opts.ref);
  if (!access.canAct) {
    throw new AppError(
      "FORBIDDEN",
      `only an engineer of the team owning ${opts.ref.namespace} may ${opts.action} its jobs`,
    );
  }
  return access;
}

/**
 * For a live stream, asked again every few seconds: the session's current user, or null once the session
 * was revoked (signed out, expired, deleted) or the user lost the right to read this job. The stream ends
 * then. The team lookup is the same as every other read's, so a membership removed ends the stream too.
 */
export async function stillReadable(
  db: Db,
  session: { token: string | undefined; ref: JobRef },
): Promise<SessionUser | null> {
  const user = await userForToken(db, session.token);
  if (!user) return null;
  const access = await jobAccess(db, user, session.ref.namespace);
  return access.canRead ? user : null;
}

/**
 * For a fault injection: as any action, and a fault that reaches other teams (a node fault) needs a cluster
 * admin (server/domain/access/roles.ts `canInjectFault`).
 */
export async function requireFaultable(
  db: Db,
  user: SessionUser,
  opts: { ref: JobRef; kind: string },
): Promise<JobAccess> {
  const access = await requireActionable(db, user, {
    ref: opts.ref,
    action: `inject a ${opts.kind} fault into`,
  });
  if (!canInjectFault(user.memberships, { teamId: access.team?.id ?? null, kind: opts.kind })) {
    throw new AppError(
      "FORBIDDEN",
      `a ${opts.kind} fault fails every pod on the node, other teams' included: only a cluster admin may inject it`,
    );
  }
  return access;
}
