import { cellOf } from "@/server/domain/governance/limits";
import { formatQuantity } from "@/server/domain/governance/quantity";
import {
  DEFAULT_FLAVOR,
  type GovernanceConfig,
  type Quantities,
  type TeamQuota,
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
    queueingStrategy: "BestEffortFIFO";
    resourceGroups: Array<{
      coveredResources: string[];
      flavors: Array<{ name: string; resources: FlavorQuota[] }>;
    }>;
    preemption: {
      reclaimWithinCohort: "Any";
      withinClusterQueue: "LowerPriority" | "Never";
      borrowWithinCohort: { policy: "Never" | "LowerPriority" };
    };
    fairSharing?: { weight: string };
    stopPolicy: "None" | "Hold";
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
  localQueues: LocalQueueObject[];
  priorityClasses: WorkloadPriorityClassObject[];
};

const managed = (): Record<string, string> => ({ [LABEL_MANAGED_BY]: MANAGED_BY });

/**
 * One resource of one flavor, with the limits of the governance domain (limits.ts, so the local back end's
 * admission and Kueue use the same numbers): LendAndBorrow may borrow the absolute limit, else BorrowLimit
 * percent of the guarantee; Lend and DontLend borrow nothing; DontLend lends nothing (lendingLimit 0).
 */
function flavorQuota(quota: TeamQuota, flavor: string, resource: string): FlavorQuota {
  const cell = cellOf(quota, flavor, resource);
  return {
    name: resource,
    nominalQuota: formatQuantity(resource, cell.nominal),
    borrowingLimit: formatQuantity(resource, cell.borrowLimit),
    ...(quota.strategy === "DontLend" ? { lendingLimit: "0" } : {}),
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
      queueingStrategy: "BestEffortFIFO",
      resourceGroups,
      preemption: {
        reclaimWithinCohort: "Any",
        withinClusterQueue: quota.preemptTeamTasks === "LowerPriority" ? "LowerPriority" : "Never",
        borrowWithinCohort: { policy: "Never" },
      },
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

/** The objects of a configuration: what syncKueue makes the cluster hold. */
export function kueueObjectsOf(config: GovernanceConfig): KueueObjects {
  const scope = { ...flavorsAndResources(config), fairShare: config.scheduler.fairShare };
  return {
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
      value: weight,
      description: `HyperPod priority class ${name} (weight ${weight})`,
    })),
  };
}
