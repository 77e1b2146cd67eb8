import type { GovernanceRevision } from "@/server/services/live/governance-streams";

/** The parts of the governance revision (server/services/live/governance-streams.ts). */
export type RevisionPart = keyof GovernanceRevision;

/** The governance queries each part's change makes stale (quota and scheduler forms are left alone: a
 * reload would drop a draft being typed; their own save reloads them). */
export type StaleQuery = "audit" | "overview" | "members" | "queue" | "whyPending" | "capacityHistory";

export const STALE_WHEN: Record<RevisionPart, readonly StaleQuery[]> = {
  audit: ["audit", "overview", "members"],
  queue: ["queue", "overview", "whyPending"],
  capacity: ["capacityHistory"],
};

/** The governance procedures to fetch again between two revisions (none for the first one seen). */
export function staleQueries(previous: GovernanceRevision | null, next: GovernanceRevision): StaleQuery[] {
  if (previous === null) return [];
  const parts = (Object.keys(STALE_WHEN) as RevisionPart[]).filter((part) => previous[part] !== next[part]);
  return [...new Set(parts.flatMap((part) => STALE_WHEN[part]))];
}
