/**
 * TV share tokens (issue 13): a read-only credential a cluster admin hands to a wall screen. A token opens
 * only the TV views it names and shows only the teams it names; it never calls a mutation (server/api/trpc.ts
 * refuses every mutation of a request that carries only a share token). Pure: the grant is resolved from the
 * database by server/services/share-tokens.
 */
export const TV_VIEWS = ["cluster", "jobs", "reliability", "incidents"] as const;
export type TvView = (typeof TV_VIEWS)[number];

export const TV_VIEW_TITLES: Record<TvView, string> = {
  cluster: "Cluster: GPUs by team",
  jobs: "Jobs and goodput",
  reliability: "Faults and recovery, last 24 h",
  incidents: "Current incidents",
};

/** What a share token may read. */
export type ShareGrant = {
  tokenId: string;
  label: string;
  views: TvView[];
  /** Every team's data, or only `teamIds`' (jobs in those teams' namespaces, those teams' quotas). */
  allTeams: boolean;
  teamIds: string[];
};

export const isTvView = (value: string): value is TvView => (TV_VIEWS as readonly string[]).includes(value);

export function grantAllowsView(grant: ShareGrant, view: TvView): boolean {
  return grant.views.includes(view);
}

/** Whether a team's data is inside the grant. */
export function grantAllowsTeam(grant: ShareGrant, teamId: string): boolean {
  return grant.allTeams || grant.teamIds.includes(teamId);
}
