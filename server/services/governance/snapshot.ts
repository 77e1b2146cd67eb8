import { type ClusterNode, isNodeHealthy } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import {
  type AdmittedWorkload,
  DEFAULT_FLAVOR,
  type FlavorQuantities,
  type GovernanceConfig,
  type GovernanceSnapshot,
  GPU,
  type Quantities,
  type Workload,
} from "@/server/domain/governance/types";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { loadGovernanceConfig } from "@/server/store/governance/config";

/**
 * The console's GovernanceSnapshot: the configuration from Postgres, the capacity of the cluster's healthy
 * nodes and the live jobs from the jobs gateway, as the domain's admission, what-if and why-pending take it.
 *
 * A job in a team's namespace is governed. The operator says where it stands (`admission`) and what it asks
 * (`request`); a job without them (an older operator, console-only mode) counts by its GPUs, and is admitted
 * while it is active. A job the operator says is not governed (`admission: null`), or one outside any team's
 * namespace, takes its request off the capacity instead ("capacity net of ungoverned jobs").
 */
export type GovernedJob = { job: LiveJob; workload: Workload; team: string };

export type SnapshotWithJobs = {
  snapshot: GovernanceSnapshot;
  /** Governed jobs that are not finished, by `<namespace>/<name>`. */
  jobs: ReadonlyMap<string, GovernedJob>;
  /** The team of each team namespace. */
  teamOfNamespace: ReadonlyMap<string, string>;
};

const FINISHED = new Set(["Succeeded", "Failed"]);
const PRIORITY_SUFFIX = "-priority";

export const jobKey = (job: { namespace: string; name: string }): string => `${job.namespace}/${job.name}`;

/** `training-priority` (the label's value) is the class `training`. */
export function priorityClassOfLabel(label: string | null): string | null {
  if (!label) return null;
  return label.endsWith(PRIORITY_SUFFIX) ? label.slice(0, -PRIORITY_SUFFIX.length) : label;
}

export function requestOf(job: LiveJob): Quantities {
  return job.request ?? { [GPU]: job.gpus };
}

function workloadOfLive(job: LiveJob, team: string): Workload {
  return {
    key: jobKey(job),
    team,
    priorityClass: priorityClassOfLabel(job.priorityClass),
    createdAt: job.createdAt,
    request: requestOf(job),
    flavors: null,
  };
}

/** Allocatable capacity of healthy nodes: GPUs per flavor (nodes report no instance type: the default one). */
export function nodeCapacity(nodes: readonly ClusterNode[]): Record<string, Record<string, number>> {
  const gpus = nodes.filter(isNodeHealthy).reduce((sum, node) => sum + node.gpus, 0);
  return { [DEFAULT_FLAVOR]: { [GPU]: gpus } };
}

/** Takes what ungoverned jobs use off the capacity (only resources the capacity lists; never below 0). */
function netOf(capacity: Record<string, Record<string, number>>, used: Quantities[]): FlavorQuantities {
  const flavor = capacity[DEFAULT_FLAVOR] ?? {};
  for (const request of used) {
    for (const [resource, amount] of Object.entries(request)) {
      const have = flavor[resource];
      if (have !== undefined) flavor[resource] = Math.max(0, have - amount);
    }
  }
  return capacity;
}

type Sorted = { admitted: AdmittedWorkload[]; pending: Workload[]; ungoverned: Quantities[] };

function isActive(job: LiveJob): boolean {
  return job.phase !== "Suspended";
}

function placeUngoverned(job: LiveJob, into: Sorted): null {
  if (isActive(job)) into.ungoverned.push(requestOf(job));
  return null;
}

/** Where one live job goes: admitted, pending, off the capacity, or nowhere (finished, suspended by hand). */
function place(job: LiveJob, team: string | undefined, into: Sorted): Workload | null {
  if (FINISHED.has(job.phase)) return null;
  if (team === undefined || job.admission === null) return placeUngoverned(job, into);
  const workload = workloadOfLive(job, team);
  const admission = job.admission;
  if (admission === undefined) {
    if (!isActive(job)) return workload;
    into.admitted.push({ ...workload, flavor: DEFAULT_FLAVOR, admittedAt: job.createdAt });
    return workload;
  }
  if (admission.state === "Admitted" || admission.state === "Preempting") {
    into.admitted.push({
      ...workload,
      flavor: admission.flavor ?? DEFAULT_FLAVOR,
      admittedAt: admission.since,
    });
  } else into.pending.push(workload);
  return workload;
}

export function snapshotOf(input: {
  config: GovernanceConfig;
  nodes: readonly ClusterNode[];
  jobs: readonly LiveJob[];
  teamOfNamespace: ReadonlyMap<string, string>;
  now: number;
}): SnapshotWithJobs {
  const sorted: Sorted = { admitted: [], pending: [], ungoverned: [] };
  const jobs = new Map<string, GovernedJob>();
  for (const job of input.jobs) {
    const team = input.teamOfNamespace.get(job.namespace);
    const workload = place(job, team, sorted);
    if (workload && team) jobs.set(workload.key, { job, workload, team });
  }
  return {
    snapshot: {
      config: input.config,
      capacity: netOf(nodeCapacity(input.nodes), sorted.ungoverned),
      admitted: sorted.admitted,
      pending: sorted.pending,
      now: input.now,
    },
    jobs,
    teamOfNamespace: input.teamOfNamespace,
  };
}

export async function teamNamespaces(db: Db): Promise<Map<string, string>> {
  const teams = await db.team.findMany({ select: { name: true, namespace: true } });
  return new Map(teams.map((team) => [team.namespace, team.name]));
}

/** Reads Postgres and the cluster once and builds the snapshot. */
export async function buildGovernanceSnapshot(args: {
  db: Db;
  source: ClusterSource;
  now?: number;
}): Promise<SnapshotWithJobs> {
  const [config, teamOfNamespace, nodes, jobs] = await Promise.all([
    loadGovernanceConfig(args.db),
    teamNamespaces(args.db),
    args.source.nodes(),
    args.source.jobs(),
  ]);
  return snapshotOf({ config, nodes, jobs, teamOfNamespace, now: args.now ?? Date.now() });
}
