import { isClusterAdmin, type Membership } from "@/server/domain/access/roles";
import type { ShareGrant } from "@/server/domain/access/share";

/**
 * Whose data a TV frame shows: the whole cluster, or some teams'. A share grant gives its teams (or all);
 * a signed-in user gets the teams they may read (canReadTeam: any membership, or every team for a cluster
 * admin). All viewers of one scope share one loop, so the key is canonical (sorted ids).
 */
export type TvScope = { all: true } | { all: false; teamIds: readonly string[] };

const teamsScope = (teamIds: readonly string[]): TvScope => ({
  all: false,
  teamIds: [...new Set(teamIds)].sort(),
});

export function scopeOfGrant(grant: Pick<ShareGrant, "allTeams" | "teamIds">): TvScope {
  return grant.allTeams ? { all: true } : teamsScope(grant.teamIds);
}

export function scopeOfMemberships(memberships: readonly Membership[]): TvScope {
  return isClusterAdmin(memberships)
    ? { all: true }
    : teamsScope(memberships.map((membership) => membership.teamId));
}

export function scopeKey(scope: TvScope): string {
  return scope.all ? "all" : `teams:${scope.teamIds.join(",")}`;
}

/** A namespace owned by no team (`teamId` null) is in the whole-cluster scope only. */
export function scopeAllowsTeam(scope: TvScope, teamId: string | null): boolean {
  if (scope.all) return true;
  return teamId !== null && scope.teamIds.includes(teamId);
}

/** A predicate over namespaces, from the namespace → team id map. */
export function namespaceFilter(
  scope: TvScope,
  teamIdOfNamespace: ReadonlyMap<string, string>,
): (namespace: string) => boolean {
  return (namespace) => scopeAllowsTeam(scope, teamIdOfNamespace.get(namespace) ?? null);
}
