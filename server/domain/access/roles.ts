/**
 * Who may do what (reliability and security). Pure: the tRPC procedures call these with the
 * signed-in user's memberships.
 */
export type Role = "viewer" | "engineer" | "team_admin" | "cluster_admin";
export type Membership = { teamId: string; teamName: string; role: Role };

const RANK: Record<Role, number> = { viewer: 0, engineer: 1, team_admin: 2, cluster_admin: 3 };

export function isClusterAdmin(memberships: readonly Membership[]): boolean {
  return memberships.some((membership) => membership.role === "cluster_admin");
}

/** A cluster admin holds every role on every team; otherwise the user's role on that team counts. */
export function hasTeamRole(
  memberships: readonly Membership[],
  need: { teamId: string; atLeast: Role },
): boolean {
  if (isClusterAdmin(memberships)) return true;
  const membership = memberships.find((candidate) => candidate.teamId === need.teamId);
  return membership !== undefined && RANK[membership.role] >= RANK[need.atLeast];
}

export function highestRole(memberships: readonly Membership[]): Role | null {
  let best: Role | null = null;
  for (const { role } of memberships) if (best === null || RANK[role] > RANK[best]) best = role;
  return best;
}

/**
 * Whether the user may see a team's jobs, their pages, logs, metrics and live streams: any role on that
 * team, or cluster admin. A namespace that belongs to no team (`teamId` null) is for cluster admins only.
 */
export function canReadTeam(memberships: readonly Membership[], teamId: string | null): boolean {
  if (isClusterAdmin(memberships)) return true;
  return teamId !== null && memberships.some((membership) => membership.teamId === teamId);
}

/** Whether the user may act on a team's jobs (restart, suspend, delete, inject faults): engineer or above. */
export function canActOnTeam(memberships: readonly Membership[], teamId: string | null): boolean {
  if (isClusterAdmin(memberships)) return true;
  return teamId !== null && hasTeamRole(memberships, { teamId, atLeast: "engineer" });
}

/**
 * Faults that reach beyond the job they are aimed at: a `node` fault fails the whole node, and with it other
 * teams' pods there. Only a cluster admin may inject them, by any way in (the console's actions here, the
 * operator's API through `faultGrants` in operator-api.ts).
 */
export function faultReachesOtherTeams(kind: string): boolean {
  return kind === "node";
}

/** Whether the user may inject this kind of fault into a job of this team. */
export function canInjectFault(
  memberships: readonly Membership[],
  fault: { teamId: string | null; kind: string },
): boolean {
  if (faultReachesOtherTeams(fault.kind)) return isClusterAdmin(memberships);
  return canActOnTeam(memberships, fault.teamId);
}
