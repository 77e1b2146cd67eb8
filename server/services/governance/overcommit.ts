import type { ClusterNode } from "@/server/cluster/types";
import { GPU } from "@/server/domain/governance/types";
import { AppError } from "@/server/errors";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";

/**
 * Whether teams' guarantees promise more than the cluster has (issue 34). The governance model counts one
 * resource of the cluster, GPUs (server/services/governance/snapshot.ts nodeCapacity), so that is the one
 * checked: the sum of every team's guaranteed GPUs, over all instance types, against the GPUs of all the
 * cluster's nodes. A node that is down for a while still counts: a guarantee is a standing promise, and a
 * quota that fit yesterday is not refused because a node is being repaired. Only an enabled quota
 * guarantees anything (a disabled one admits nothing new), so a disabled one counts 0.
 */

/** The cluster's GPUs, or why they could not be read. */
export type CapacityReading = { ok: true; gpus: number } | { ok: false; reason: string };

export function gpusOfNodes(nodes: readonly ClusterNode[]): number {
  return nodes.reduce((sum, node) => sum + node.gpus, 0);
}

/** Reads the cluster's nodes through the jobs gateway (the source governance reads capacity from). */
export async function readClusterCapacity(cluster: () => Promise<ClusterSource>): Promise<CapacityReading> {
  try {
    return { ok: true, gpus: gpusOfNodes(await (await cluster()).nodes()) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** One team's quota as the check needs it. */
export type GuaranteeRows = {
  active: boolean;
  resources: ReadonlyArray<{ resource: string; guaranteed: number }>;
};

/** The GPUs a quota guarantees (0 when disabled). */
export function guaranteedGpus(quota: GuaranteeRows | null): number {
  if (!quota?.active) return 0;
  return quota.resources.filter((row) => row.resource === GPU).reduce((sum, row) => sum + row.guaranteed, 0);
}

export type Overcommit = {
  team: string;
  resource: string;
  /** The team's guarantee before and after the change. */
  before: number;
  asked: number;
  /** Every other team's guarantee together. */
  others: number;
  /** What the cluster has. */
  capacity: number;
  /** The most this team may be guaranteed without over-committing (never below 0). */
  atMost: number;
  message: string;
};

/**
 * The over-commit a change makes, or null. Only a raise is judged: a change that keeps or lowers the team's
 * guarantee is never refused, even on a cluster that is already over-committed (nodes removed since), so a
 * team admin can always lower a guarantee or edit the rest of a quota.
 */
export function overcommitOf(args: {
  team: string;
  before: number;
  asked: number;
  others: number;
  capacity: number;
}): Overcommit | null {
  const { team, before, asked, others, capacity } = args;
  if (asked <= before || others + asked <= capacity) return null;
  const atMost = Math.max(0, capacity - others);
  return {
    team,
    resource: GPU,
    before,
    asked,
    others,
    capacity,
    atMost,
    message:
      `${team}: guaranteed ${GPU} ${asked} would over-commit the cluster: the other teams are guaranteed ` +
      `${others} and the cluster has ${capacity}, so at most ${atMost} fits; lower it, or allow over-commit ` +
      "(guarantees then promise more than the cluster can give at once)",
  };
}

/**
 * Refuses a raise that over-commits the cluster unless the caller chose to allow it; a raise the cluster
 * could not be read for is refused too (UNAVAILABLE), since whether it fits is unknown.
 */
export function assertFits(args: {
  team: string;
  before: number;
  asked: number;
  others: number;
  capacity: CapacityReading;
  allowOvercommit: boolean;
}): void {
  if (args.allowOvercommit || args.asked <= args.before) return;
  if (!args.capacity.ok) {
    throw new AppError(
      "UNAVAILABLE",
      `${args.team}: guaranteed ${GPU} ${args.asked} cannot be checked against the cluster's capacity ` +
        `(the cluster cannot be read: ${args.capacity.reason}); try again, or allow over-commit`,
    );
  }
  const found = overcommitOf({ ...args, capacity: args.capacity.gpus });
  if (found) throw new AppError("INVALID", found.message);
}

/** Serialises guarantee changes (quota updates, team creation), so two raises cannot both pass the check. */
export const GUARANTEE_LOCK_KEY = 3_401_005;
