import type { Db } from "@/server/db/client";
import { canEditPolicies, canReadPolicies } from "@/server/domain/access/policies";
import { AppError } from "@/server/errors";
import type { SessionUser } from "@/server/services/auth/sessions";
import { policyTeam } from "@/server/services/policies/queries";

/**
 * The policies router's checks (rules in server/domain/access/policies.ts), answered as the jobs router
 * answers for jobs: another team's policy is NOT_FOUND, exactly as one that does not exist, so its name
 * and existence do not leak; a readable policy the user may not change is FORBIDDEN.
 */
export type PolicyTeam = { id: string; name: string };

export async function requirePolicyReadable(db: Db, user: SessionUser, id: string): Promise<PolicyTeam> {
  const team = await policyTeam(db, id);
  if (!canReadPolicies(user.memberships, team.id)) throw new AppError("NOT_FOUND", `policy ${id} not found`);
  return team;
}

export async function requirePolicyEditable(db: Db, user: SessionUser, id: string): Promise<PolicyTeam> {
  const team = await requirePolicyReadable(db, user, id);
  if (!canEditPolicies(user.memberships, team.id)) {
    throw new AppError(
      "FORBIDDEN",
      `only an engineer or team admin of ${team.name} (or a cluster admin) may change its policies`,
    );
  }
  return team;
}

/** For a new policy in a team: NOT_FOUND for a team the user is not in, FORBIDDEN for a viewer. */
export async function requireTeamEditable(db: Db, user: SessionUser, teamId: string): Promise<PolicyTeam> {
  const team = await db.team.findUnique({ where: { id: teamId }, select: { id: true, name: true } });
  if (!team || !canReadPolicies(user.memberships, team.id)) {
    throw new AppError("NOT_FOUND", `teamId: no team ${teamId}`);
  }
  if (!canEditPolicies(user.memberships, team.id)) {
    throw new AppError(
      "FORBIDDEN",
      `only an engineer or team admin of ${team.name} (or a cluster admin) may create its policies`,
    );
  }
  return team;
}
