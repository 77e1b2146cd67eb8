import { type ClusterNode, isNodeHealthy } from "@/server/cluster/types";
import {
  DEFAULT_FLAVOR,
  type FlavorQuantities,
  type GovernanceConfig,
  GPU,
} from "@/server/domain/governance/types";
import type { Logger } from "@/server/log";
import type { ApplyObject, KueueApi, LiveObject, ManagedKind } from "./client";
import { kueueObjectsOf } from "./objects";

/**
 * Postgres → Kueue: makes the cluster hold exactly the Kueue objects of the governance configuration
 * (objects.ts). Idempotent: an object whose live state already has every field we set is left alone, one that
 * differs (edited by hand) or is missing (deleted by hand) is applied again (server-side apply, forced, so our
 * fields win), and a managed object no longer wanted is deleted. Only objects carrying the managed-by label
 * are ever changed or deleted. A team's namespace is never deleted (it holds the team's jobs): when the team
 * goes, the namespace loses the labels Rebound put on it.
 */
export type SyncResult = { applied: string[]; removed: string[] };

type Desired = ApplyObject & Record<string, unknown>;

/** Whether `live` has every field of `desired` with the same value (extra fields, defaults, status: ignored). */
export function covers(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      live.length === desired.length &&
      desired.every((item, i) => covers(live[i], item))
    );
  }
  if (desired !== null && typeof desired === "object") {
    if (live === null || typeof live !== "object" || Array.isArray(live)) return false;
    const record = live as Record<string, unknown>;
    return Object.entries(desired).every(([key, value]) => covers(record[key], value));
  }
  return live === desired;
}

const keyOf = (object: { metadata?: { name?: string; namespace?: string } }): string =>
  object.metadata?.namespace
    ? `${object.metadata.namespace}/${object.metadata.name}`
    : (object.metadata?.name ?? "");

/**
 * Applied in this order (a LocalQueue names its ClusterQueue, which names its flavors and cohort); removed in
 * reverse. The Cohort only when the capacity is known (idle resource sharing sizes it by the nodes).
 */
function desiredByKind(
  config: GovernanceConfig,
  capacity: FlavorQuantities | null,
): Array<[ManagedKind, Desired[]]> {
  const objects = kueueObjectsOf(config, capacity);
  return [
    ["Namespace", objects.namespaces],
    ["ResourceFlavor", objects.flavors],
    ["WorkloadPriorityClass", objects.priorityClasses],
    ...(capacity === null ? [] : [["Cohort", objects.cohorts] as [ManagedKind, Desired[]]]),
    ["ClusterQueue", objects.clusterQueues],
    ["LocalQueue", objects.localQueues],
  ];
}

async function removeUnwanted(api: KueueApi, kind: ManagedKind, stale: LiveObject[]): Promise<void> {
  for (const object of stale) {
    const name = object.metadata?.name ?? "";
    if (kind === "Namespace") {
      // Applying the bare namespace drops every label this field manager set on it; the namespace stays.
      await api.apply({ kind, metadata: { name }, apiVersion: "v1" } as ApplyObject);
    } else {
      await api.remove(kind, { name, namespace: object.metadata?.namespace });
    }
  }
}

/** `capacity`: the healthy nodes' allocatable per instance type (the cohort's idle quota); null: unknown. */
export async function syncKueue(
  config: GovernanceConfig,
  api: KueueApi,
  capacity: FlavorQuantities | null = null,
): Promise<SyncResult> {
  const result: SyncResult = { applied: [], removed: [] };
  const stale: Array<[ManagedKind, LiveObject[]]> = [];
  for (const [kind, desired] of desiredByKind(config, capacity)) {
    const live = new Map((await api.listManaged(kind)).map((object) => [keyOf(object), object]));
    for (const object of desired) {
      const { apiVersion: _version, kind: _kind, ...fields } = object; // list items of core kinds carry neither
      if (covers(live.get(keyOf(object)), fields)) continue;
      await api.apply(object);
      result.applied.push(`${kind} ${keyOf(object)}`);
    }
    const wanted = new Set(desired.map(keyOf));
    stale.push([kind, [...live.values()].filter((object) => !wanted.has(keyOf(object)))]);
  }
  for (const [kind, objects] of stale.reverse()) {
    await removeUnwanted(api, kind, objects);
    result.removed.push(...objects.map((object) => `${kind} ${keyOf(object)}`));
  }
  return result;
}

/** Healthy nodes' GPUs per instance type (`default` for a node without one): the sync's `capacity`. */
export function capacityOfNodes(nodes: readonly ClusterNode[]): FlavorQuantities {
  const out: Record<string, Record<string, number>> = {};
  for (const node of nodes.filter(isNodeHealthy)) {
    const flavor = node.instanceType ?? DEFAULT_FLAVOR;
    out[flavor] = { [GPU]: (out[flavor]?.[GPU] ?? 0) + node.gpus };
  }
  return out;
}

export type KueueSync = {
  /** Sync now (after a change); resolves when this sync is done. */
  trigger(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Runs syncKueue every `intervalMs` (default 5 s) and on trigger(), one at a time; a failed sync is logged and
 * retried at the next tick. `load` reads the configuration (loadGovernanceConfig(db) in the operator), and
 * `capacity` the nodes (so a node added or lost resizes the cohort's idle quota within a tick).
 */
export function startKueueSync(opts: {
  load: () => Promise<GovernanceConfig>;
  /** The healthy nodes' allocatable per instance type, for idle resource sharing; absent: not managed. */
  capacity?: () => Promise<FlavorQuantities>;
  api: KueueApi;
  log: Logger;
  intervalMs?: number;
}): KueueSync {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const once = async () => {
    try {
      const capacity = opts.capacity ? await opts.capacity() : null;
      const result = await syncKueue(await opts.load(), opts.api, capacity);
      if (result.applied.length + result.removed.length > 0) opts.log.info("kueue objects synced", result);
    } catch (error) {
      opts.log.warn("kueue sync failed; retrying at the next tick", { error: String(error) });
    }
  };
  const trigger = () => {
    if (stopped) return running;
    running = running.then(once);
    return running;
  };
  const timer = setInterval(() => void trigger(), opts.intervalMs ?? 5_000);
  void trigger();
  return {
    trigger,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
