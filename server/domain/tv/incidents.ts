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
  /** How long it had lasted when the frame was assembled (lastedMs at the frame's `now`). */
  lastedMs: number | null;
};

/** A node that is not healthy now (not ready, or a health status other than Schedulable), since its last change. */
export type NodeIncident = {
  name: string;
  health: string;
  ready: boolean;
  since: number;
  lastedMs: number | null;
};

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
  /** The assembling clock's now (each incident's lastedMs is measured against it). */
  now: number;
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
              lastedMs: lastedMs(job.recovery.faultAt, input.now),
            },
          ],
    )
    .sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  const usedNodes = new Set(visible.flatMap((job) => job.pods.map((pod) => pod.node)));
  const nodes = input.nodes
    .filter((node) => unhealthy(node) && (input.scope.all || usedNodes.has(node.name)))
    .map((node) => ({
      name: node.name,
      health: node.health,
      ready: node.ready,
      since: node.changedAt,
      lastedMs: lastedMs(node.changedAt, input.now),
    }))
    .sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  return {
    jobs: jobs.slice(0, MAX_INCIDENTS),
    nodes: nodes.slice(0, MAX_INCIDENTS),
    moreJobs: Math.max(0, jobs.length - MAX_INCIDENTS),
    moreNodes: Math.max(0, nodes.length - MAX_INCIDENTS),
  };
}

/**
 * How long an incident has lasted at `now`, both on the clock that stamped `since` (the console's, when it
 * assembles a frame: a screen's own clock may be minutes off, which read as a frozen "0 ms"); never negative;
 * null when the start is unknown (a source that keeps no change time reports 0).
 */
export function lastedMs(since: number, now: number): number | null {
  if (!Number.isFinite(since) || since <= 0) return null;
  return Math.max(0, now - since);
}

/**
 * The running duration a screen shows: what the frame said the incident had lasted when it was assembled,
 * plus the time since the screen received that frame on its own clock (so skew between the screen and the
 * console never freezes or inflates it); null (shown "—") when the start is unknown.
 */
export function runningFor(input: {
  lastedMs: number | null;
  receivedAt: number;
  now: number;
}): number | null {
  if (input.lastedMs === null) return null;
  return input.lastedMs + Math.max(0, input.now - input.receivedAt);
}
