import { canActOnTeam, canReadTeam, hasTeamRole, isClusterAdmin, type Membership } from "./roles";

/**
 * Who may do what with recovery and log-rule policies (issue 12; roles): the one place the
 * policies router asks. A team's members read its policies; its engineers and team admins write them;
 * cluster admins read and write all. Applying a policy to a job, or attaching or promoting a shadow rule
 * set, is an action on the job: the job's team's engineers (and team admins) and cluster admins, the rule
 * server/services/access/job-access.ts applies to every job action.
 */

/** A team's policies and their versions: its members, or a cluster admin. */
export function canReadPolicies(memberships: readonly Membership[], teamId: string): boolean {
  return canReadTeam(memberships, teamId);
}

/** Creating a policy in a team or saving a new version: its engineers and team admins, or a cluster admin. */
export function canEditPolicies(memberships: readonly Membership[], teamId: string): boolean {
  return hasTeamRole(memberships, { teamId, atLeast: "engineer" });
}

/**
 * Applying a policy version to a job (or attaching, detaching or promoting its shadow): the user must act on
 * the job's team and read the policy's team (a policy of a team they cannot see is not theirs to use).
 */
export function canApplyPolicy(
  memberships: readonly Membership[],
  target: { jobTeamId: string | null; policyTeamId: string | null },
): boolean {
  if (!canActOnTeam(memberships, target.jobTeamId)) return false;
  return target.policyTeamId === null || canReadPolicies(memberships, target.policyTeamId);
}

/** The teams whose policies the user lists: null for a cluster admin (all), else their teams' ids. */
export function policyTeams(memberships: readonly Membership[]): readonly string[] | null {
  if (isClusterAdmin(memberships)) return null;
  return [...new Set(memberships.map((membership) => membership.teamId))];
}
