import { kueueSettingsOf, withinClusterQueueOf } from "@/server/domain/governance/kueue-settings";
import { cellOf } from "@/server/domain/governance/limits";
import { formatQuantity } from "@/server/domain/governance/quantity";
import {
  DEFAULT_FLAVOR,
  type FlavorQuantities,
  type GovernanceConfig,
  type Quantities,
  type QueueingStrategy,
  type ReclaimWithinCohort,
  type TeamQuota,
  type WithinClusterQueue,
} from "@/server/domain/governance/types";
import {
  COHORT,
  clusterQueueName,
  KUEUE_API_VERSION,
  LABEL_INSTANCE_TYPE,
  LABEL_MANAGED_BY,
  LABEL_MANAGED_QUEUE,
  LABEL_QUOTA_ALLOCATION,
  localQueueName,
  MANAGED_BY,
  priorityClassObjectName,
  teamNamespace,
} from "./names";

/**
 * The Kueue objects (v1beta1) a governance configuration becomes, per
 * docs/hyperpod-compatibility.md, "Task governance objects": pure, so the mapping is unit-tested and the sync
 * only compares and applies. Every object carries the managed-by label.
 */
export type ObjectMeta = {
  name: string;
  namespace?: string;
  labels: Record<string, string>;
};

export type NamespaceObject = { apiVersion: "v1"; kind: "Namespace"; metadata: ObjectMeta };

export type ResourceFlavorObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "ResourceFlavor";
  metadata: ObjectMeta;
  spec: { nodeLabels?: Record<string, string> };
};

export type FlavorQuota = {
  name: string;
  nominalQuota: string;
  borrowingLimit?: string;
  lendingLimit?: string;
};

export type ClusterQueueObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "ClusterQueue";
  metadata: ObjectMeta;
  spec: {
    cohort: string;
    namespaceSelector: Record<string, never>;
    queueingStrategy: QueueingStrategy;
    resourceGroups: Array<{
      coveredResources: string[];
      flavors: Array<{ name: string; resources: FlavorQuota[] }>;
    }>;
    preemption: {
      reclaimWithinCohort: ReclaimWithinCohort;
      withinClusterQueue: WithinClusterQueue;
      borrowWithinCohort: { policy: "Never" | "LowerPriority"; maxPriorityThreshold?: number };
    };
    fairSharing?: { weight: string };
    stopPolicy: "None" | "Hold";
  };
};

/**
 * The teams' cohort (Kueue v1beta1 Cohort): its own quota is what no team is guaranteed, lendable to every
 * team within its borrowing limit; that is HyperPod's idle resource sharing. 0 with idle sharing off.
 */
export type CohortObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "Cohort";
  metadata: ObjectMeta;
  spec: {
    resourceGroups?: Array<{
      coveredResources: string[];
      flavors: Array<{ name: string; resources: Array<{ name: string; nominalQuota: string }> }>;
    }>;
  };
};

export type LocalQueueObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "LocalQueue";
  metadata: ObjectMeta;
  spec: { clusterQueue: string };
};

export type WorkloadPriorityClassObject = {
  apiVersion: typeof KUEUE_API_VERSION;
  kind: "WorkloadPriorityClass";
  metadata: ObjectMeta;
  value: number;
  description: string;
};

export type KueueObjects = {
  namespaces: NamespaceObject[];
  flavors: ResourceFlavorObject[];
  clusterQueues: ClusterQueueObject[];
  /** The cohort with the unallocated capacity; empty when the capacity is not known (not managed then). */
  cohorts: CohortObject[];
  localQueues: LocalQueueObject[];
  priorityClasses: WorkloadPriorityClassObject[];
};

const managed = (): Record<string, string> => ({ [LABEL_MANAGED_BY]: MANAGED_BY });

/**
 * One resource of one flavor, with the limits of the governance domain (limits.ts, so the local back end's
 * admission and Kueue use the same numbers): LendAndBorrow may borrow the absolute limit, else BorrowLimit
 * percent of the guarantee; Lend and DontLend borrow nothing; DontLend lends nothing (lendingLimit 0), and a
 * team's advanced lending limit lends only part of its GPUs.
 */
function flavorQuota(quota: TeamQuota, flavor: string, resource: string): FlavorQuota {
  const cell = cellOf(quota, flavor, resource);
  const partial = quota.strategy === "DontLend" || cell.lendable < cell.nominal;
  return {
    name: resource,
    nominalQuota: formatQuantity(resource, cell.nominal),
    borrowingLimit: formatQuantity(resource, cell.borrowLimit),
    ...(partial ? { lendingLimit: formatQuantity(resource, cell.lendable) } : {}),
  };
}

/** The ClusterQueue's preemption and queueing from the team's advanced Kueue settings (kueue-settings.ts). */
function queueing(quota: TeamQuota): Pick<ClusterQueueObject["spec"], "queueingStrategy" | "preemption"> {
  const knobs = kueueSettingsOf(quota);
  const threshold = knobs.borrowWithinCohort.maxPriorityThreshold;
  return {
    queueingStrategy: knobs.queueingStrategy,
    preemption: {
      reclaimWithinCohort: knobs.reclaimWithinCohort,
      withinClusterQueue: withinClusterQueueOf(quota),
      borrowWithinCohort: {
        policy: knobs.borrowWithinCohort.policy,
        ...(knobs.borrowWithinCohort.policy === "LowerPriority" && threshold !== null
          ? { maxPriorityThreshold: threshold }
          : {}),
      },
    },
  };
}

/** Every flavor and resource any team names (guarantee or absolute limit), sorted: one resource group. */
function flavorsAndResources(config: GovernanceConfig): { flavors: string[]; resources: string[] } {
  const flavors = new Set<string>();
  const resources = new Set<string>();
  const add = (byFlavor: Readonly<Record<string, Quantities>>) => {
    for (const [flavor, quantities] of Object.entries(byFlavor)) {
      flavors.add(flavor);
      for (const resource of Object.keys(quantities)) resources.add(resource);
    }
  };
  for (const team of config.teams) {
    add(team.guaranteed);
    add(team.absoluteBorrowLimit);
  }
  return { flavors: [...flavors].sort(), resources: [...resources].sort() };
}

function clusterQueue(
  quota: TeamQuota,
  scope: { flavors: string[]; resources: string[]; fairShare: boolean },
): ClusterQueueObject {
  const resourceGroups =
    scope.flavors.length === 0 || scope.resources.length === 0
      ? []
      : [
          {
            coveredResources: scope.resources,
            flavors: scope.flavors.map((flavor) => ({
              name: flavor,
              resources: scope.resources.map((resource) => flavorQuota(quota, flavor, resource)),
            })),
          },
        ];
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: "ClusterQueue",
    metadata: { name: clusterQueueName(quota.team), labels: { ...managed(), ...teamLabels(quota.team) } },
    spec: {
      cohort: COHORT,
      namespaceSelector: {},
      ...queueing(quota),
      resourceGroups,
      ...(scope.fairShare ? { fairSharing: { weight: String(quota.fairShareWeight) } } : {}),
      stopPolicy: quota.active ? "None" : "Hold",
    },
  };
}

const teamLabels = (team: string): Record<string, string> => ({ [LABEL_QUOTA_ALLOCATION]: team });

function flavorObject(flavor: string): ResourceFlavorObject {
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: "ResourceFlavor",
    metadata: { name: flavor, labels: managed() },
    spec: flavor === DEFAULT_FLAVOR ? {} : { nodeLabels: { [LABEL_INSTANCE_TYPE]: flavor } },
  };
}

/**
 * A flavor's capacity out of the nodes' capacity per instance type (`nodeCapacity` keys each node by its
 * instance type, `default` without one): an instance type a quota names is its own flavor; the `default`
 * flavor (a ResourceFlavor without node labels, so any node) has every node no other flavor names.
 */
function flavorCapacity(
  capacity: FlavorQuantities,
  flavors: readonly string[],
  flavor: string,
  resource: string,
) {
  if (flavor !== DEFAULT_FLAVOR) return capacity[flavor]?.[resource] ?? 0;
  return Object.entries(capacity)
    .filter(([type]) => type === DEFAULT_FLAVOR || !flavors.includes(type))
    .reduce((sum, [, quantities]) => sum + (quantities[resource] ?? 0), 0);
}

/** The cohort's own quota: capacity − Σ guarantees per flavor and resource (idle sharing on), else 0. */
function cohortOf(
  config: GovernanceConfig,
  scope: { flavors: string[]; resources: string[] },
  capacity: FlavorQuantities,
): CohortObject {
  const unallocated = (flavor: string, resource: string): number => {
    if (!config.scheduler.idleResourceSharing) return 0;
    const guaranteed = config.teams.reduce((sum, team) => sum + cellOf(team, flavor, resource).nominal, 0);
    return Math.max(0, flavorCapacity(capacity, scope.flavors, flavor, resource) - guaranteed);
  };
  const group = {
    coveredResources: scope.resources,
    flavors: scope.flavors.map((flavor) => ({
      name: flavor,
      resources: scope.resources.map((resource) => ({
        name: resource,
        nominalQuota: formatQuantity(resource, unallocated(flavor, resource)),
      })),
    })),
  };
  const empty = scope.flavors.length === 0 || scope.resources.length === 0;
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: "Cohort",
    metadata: { name: COHORT, labels: managed() },
    spec: empty ? {} : { resourceGroups: [group] },
  };
}

/**
 * The objects of a configuration: what syncKueue makes the cluster hold. `capacity` (the healthy nodes'
 * allocatable per instance type) sizes the cohort's quota for idle resource sharing; null: unknown, and the
 * cohort object is left out.
 */
export function kueueObjectsOf(
  config: GovernanceConfig,
  capacity: FlavorQuantities | null = null,
): KueueObjects {
  const scope = { ...flavorsAndResources(config), fairShare: config.scheduler.fairShare };
  return {
    cohorts: capacity === null ? [] : [cohortOf(config, scope, capacity)],
    namespaces: config.teams.map(({ team }) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: teamNamespace(team),
        labels: { ...managed(), [LABEL_MANAGED_QUEUE]: "true", ...teamLabels(team) },
      },
    })),
    flavors: scope.flavors.map(flavorObject),
    clusterQueues: config.teams.map((quota) => clusterQueue(quota, scope)),
    localQueues: config.teams.map(({ team }) => ({
      apiVersion: KUEUE_API_VERSION,
      kind: "LocalQueue",
      metadata: { name: localQueueName(team), namespace: teamNamespace(team), labels: managed() },
      spec: { clusterQueue: clusterQueueName(team) },
    })),
    priorityClasses: config.scheduler.priorityClasses.map(({ name, weight }) => ({
      apiVersion: KUEUE_API_VERSION,
      kind: "WorkloadPriorityClass",
      metadata: { name: priorityClassObjectName(name), labels: managed() },
      // First come, first served (task ranking off): every class is worth 0, so Kueue orders and preempts
      // by arrival only, as the local admission does (priority.ts's rankOf). A Workload takes its class's
      // value when it is created (workload.ts), so jobs created before the switch keep theirs.
      value: config.scheduler.taskRanking ? weight : 0,
      description: config.scheduler.taskRanking
        ? `HyperPod priority class ${name} (weight ${weight})`
        : `HyperPod priority class ${name} (weight ${weight}; task ranking off: first come, first served)`,
    })),
  };
}
