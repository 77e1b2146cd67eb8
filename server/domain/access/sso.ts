import { isClusterAdmin, type Membership, type Role } from "./roles";

/**
 * Single sign-on's access rules (docs/sso.md): who edits the group mappings, and what a user's groups give.
 * Pure: server/services/auth/oidc applies the answer to the user's memberships at every sign-in.
 */

/** Group mappings decide who becomes a cluster admin: only a cluster admin reads or edits them. */
export function canEditGroupMappings(memberships: readonly Membership[]): boolean {
  return isClusterAdmin(memberships);
}

/** One rule: members of `group` get `role` on a team, or cluster_admin cluster-wide (teamId null). */
export type GroupRule = { group: string; teamId: string | null; role: Role };

const RANK: Record<Role, number> = { viewer: 0, engineer: 1, team_admin: 2, cluster_admin: 3 };

/** What one rule gives a user in these groups, if anything. */
function ruleGives(rule: GroupRule, groups: ReadonlySet<string>, adminTeamId: string) {
  if (!groups.has(rule.group)) return null;
  if (rule.teamId === null) return { teamId: adminTeamId, role: "cluster_admin" as const };
  // Only a cluster-wide rule makes a cluster admin (the migration's check says the same of stored rows).
  if (rule.role === "cluster_admin") return null;
  return { teamId: rule.teamId, role: rule.role };
}

/**
 * The memberships a user's groups give: per team, the highest role any of their groups' rules gives there. A
 * cluster-wide rule gives cluster_admin, which in Rebound is held on a team (`adminTeamId`, the first admin's
 * team). Groups match exactly (case included), as Argo CD's `g, <group>, role:<name>` lines do. No match: no
 * membership (the user signs in with no team).
 */
export function rolesFromGroups(opts: {
  rules: readonly GroupRule[];
  groups: readonly string[];
  adminTeamId: string;
}): Map<string, Role> {
  const groups = new Set(opts.groups);
  const roles = new Map<string, Role>();
  for (const rule of opts.rules) {
    const given = ruleGives(rule, groups, opts.adminTeamId);
    if (!given) continue;
    const held = roles.get(given.teamId);
    if (held === undefined || RANK[given.role] > RANK[held]) roles.set(given.teamId, given.role);
  }
  return roles;
}
