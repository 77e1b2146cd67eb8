import { scopeAllowsTeam, type TvScope } from "./scope";

/** A job in recovery now: what happened, what is being done, and since when (the fault's time). */
export type JobIncident = {
  namespace: string;
  name: string;
  team: string | null;
  reason: string;
  action: string;
  stage: string;
  since: number;
};

/** A node that is not healthy now (not ready, or a health status other than Schedulable), since its last change. */
export type NodeIncident = { name: string; health: string; ready: boolean; since: number };

/** At most MAX_INCIDENTS of each kind, and how many more there are. */
export type Incidents = { jobs: JobIncident[]; nodes: NodeIncident[]; moreJobs: number; moreNodes: number };

type IncidentJob = {
  namespace: string;
  name: string;
  recovery: { action: string; stage: string; reason: string; faultAt: number } | null;
  pods: ReadonlyArray<{ node: string | null }>;
};
type IncidentNode = { name: string; health: string; ready: boolean; changedAt: number };

/** Incidents on screen at most, per kind (a whole rack failing is one glance, not a scroll). */
export const MAX_INCIDENTS = 6;

const unhealthy = (node: IncidentNode) => !node.ready || node.health !== "Schedulable";

/**
 * Current incidents in the viewer's scope, longest-lasting first. A team-scoped viewer sees an unhealthy
 * node only when one of its jobs has a pod there (nodes are shared: which nodes exist is not a team's data).
 */
export function incidentsOf(input: {
  jobs: readonly IncidentJob[];
  nodes: readonly IncidentNode[];
  scope: TvScope;
  teamOfNamespace: ReadonlyMap<string, { id: string; name: string }>;
}): Incidents {
  const team = (namespace: string) => input.teamOfNamespace.get(namespace) ?? null;
  const visible = input.jobs.filter((job) => scopeAllowsTeam(input.scope, team(job.namespace)?.id ?? null));
  const jobs = visible
    .flatMap((job) =>
      job.recovery === null
        ? []
        : [
            {
              namespace: job.namespace,
              name: job.name,
              team: team(job.namespace)?.name ?? null,
              reason: job.recovery.reason,
              action: job.recovery.action,
              stage: job.recovery.stage,
              since: job.recovery.faultAt,
            },
          ],
    )
    .sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  const usedNodes = new Set(visible.flatMap((job) => job.pods.map((pod) => pod.node)));
  const nodes = input.nodes
    .filter((node) => unhealthy(node) && (input.scope.all || usedNodes.has(node.name)))
    .map((node) => ({ name: node.name, health: node.health, ready: node.ready, since: node.changedAt }))
    .sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  return {
    jobs: jobs.slice(0, MAX_INCIDENTS),
    nodes: nodes.slice(0, MAX_INCIDENTS),
    moreJobs: Math.max(0, jobs.length - MAX_INCIDENTS),
    moreNodes: Math.max(0, nodes.length - MAX_INCIDENTS),
  };
}

/** "lasted 3 min 05 s": how long an incident has lasted at `now` (never negative under clock skew). */
export function lastedMs(since: number, now: number): number {
  return Math.max(0, now - since);
}
