import { canReadTeam, hasTeamRole, isClusterAdmin, type Membership, type Role } from "./roles";

/**
 * Who may do what in task governance (roles; issue 11): the one place the governance router
 * asks. Team admins change their own team's quota and members; cluster admins every team's quota, the
 * scheduler config and priority classes; engineers and viewers change nothing here. Members of a team read
 * its queue and capacity; cluster admins read all.
 */

/** A team's compute quota: its team admins, or a cluster admin. */
export function canEditQuota(memberships: readonly Membership[], teamId: string): boolean {
  return hasTeamRole(memberships, { teamId, atLeast: "team_admin" });
}

/** The scheduler config and its priority classes: cluster admins only. */
export function canEditScheduler(memberships: readonly Membership[]): boolean {
  return isClusterAdmin(memberships);
}

/** A team's members and their roles: its team admins, or a cluster admin. */
export function canEditMembers(memberships: readonly Membership[], teamId: string): boolean {
  return hasTeamRole(memberships, { teamId, atLeast: "team_admin" });
}

/** A team's queue, capacity history and why-pending answers: its members, or a cluster admin. */
export function canReadGovernance(memberships: readonly Membership[], teamId: string): boolean {
  return canReadTeam(memberships, teamId);
}

const TEAM_ROLES: readonly Role[] = ["viewer", "engineer", "team_admin"];
const ALL_ROLES: readonly Role[] = [...TEAM_ROLES, "cluster_admin"];

/** The roles this user may give in this team: a team admin never makes a cluster admin. */
export function assignableRoles(memberships: readonly Membership[], teamId: string): readonly Role[] {
  if (isClusterAdmin(memberships)) return ALL_ROLES;
  return canEditMembers(memberships, teamId) ? TEAM_ROLES : [];
}

export type RoleChange = { teamId: string; from: Role | null; to: Role };

/**
 * Whether the user may change a member's role in a team: the new role must be one they may give, and only a
 * cluster admin changes the role of a cluster admin (a team admin cannot demote one). Only a cluster admin
 * adds someone who is not a member yet (`from` null): a team admin adding any user they can name would
 * pull another team's people (and their sign-in) into their team without anyone's consent (issue 34).
 */
export function canSetRole(memberships: readonly Membership[], change: RoleChange): boolean {
  if (!assignableRoles(memberships, change.teamId).includes(change.to)) return false;
  if (change.from === null) return isClusterAdmin(memberships);
  return change.from !== "cluster_admin" || isClusterAdmin(memberships);
}

/** Whether the user may add users who are not members of the team yet: cluster admins only. */
export function canAddMembers(memberships: readonly Membership[]): boolean {
  return isClusterAdmin(memberships);
}

/**
 * Whether the user may remove a member with this role from a team: its team admins or a cluster admin, and
 * only a cluster admin removes a cluster admin. (The last team admin is kept by the service, which counts.)
 */
export function canRemoveMember(
  memberships: readonly Membership[],
  member: { teamId: string; role: Role },
): boolean {
  if (!canEditMembers(memberships, member.teamId)) return false;
  return member.role !== "cluster_admin" || isClusterAdmin(memberships);
}

/** The teams whose governance audit the user reads: all for a cluster admin (null), else those they admin. */
export function auditableTeams(memberships: readonly Membership[]): readonly string[] | null {
  if (isClusterAdmin(memberships)) return null;
  return memberships
    .filter((membership) => membership.role === "team_admin")
    .map((membership) => membership.teamName);
}

/**
 * A team's governance page by the team's name, as the browser knows it (memberships carry names): the rule
 * of canReadGovernance (a team the user is not in has no membership, so only a cluster admin reads it).
 */
export function canReadTeamGovernance(memberships: readonly Membership[], teamName: string): boolean {
  const teamId = memberships.find((membership) => membership.teamName === teamName)?.teamId ?? "";
  return canReadGovernance(memberships, teamId);
}

/** Whether the user reads any governance audit (the audit log's link and its page ask the same). */
export function canReadAudit(memberships: readonly Membership[]): boolean {
  const teams = auditableTeams(memberships);
  return teams === null || teams.length > 0;
}
