import type { Db } from "@/server/db/client";
import { teamCapacities } from "@/server/domain/governance";
import { AppError } from "@/server/errors";
import type { Overview } from "@/server/services/governance/governance.schema";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { jobCounts } from "./queue";
import { listQuotas } from "./quota";
import { buildGovernanceSnapshot, type SnapshotWithJobs, snapshotOf, teamNamespaces } from "./snapshot";

/**
 * The snapshot, or, when the cluster cannot be read, one with no nodes and no jobs and the reason: quotas
 * are still shown, capacity reads 0.
 */
export async function snapshotOrEmpty(args: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
}): Promise<{ snap: SnapshotWithJobs; error: string | null }> {
  try {
    return {
      snap: await buildGovernanceSnapshot({ db: args.db, source: await args.cluster() }),
      error: null,
    };
  } catch (error) {
    const [config, teamOfNamespace] = await Promise.all([
      loadGovernanceConfig(args.db),
      teamNamespaces(args.db),
    ]);
    return {
      snap: snapshotOf({ config, nodes: [], jobs: [], teamOfNamespace, now: Date.now() }),
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

export type TeamPermissions = { canEditQuota: boolean; canEditMembers: boolean; canReadQueue: boolean };

/** Every team's quota and capacity now, with what the signed-in user may do on each. */
export async function governanceOverview(args: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
  permissions: (team: string) => TeamPermissions;
  canEditScheduler: boolean;
}): Promise<Overview> {
  const [quotas, { snap, error }] = await Promise.all([listQuotas(args.db), snapshotOrEmpty(args)]);
  const capacities = teamCapacities(snap.snapshot);
  const counts = jobCounts(snap);
  return {
    teams: quotas.map(({ team, displayName, ...quota }) => ({
      team,
      displayName,
      quota,
      capacity: capacities
        .filter((row) => row.team === team)
        .map(({ team: _team, lendable: _lendable, ...row }) => row),
      jobs: counts.get(team) ?? { pending: 0, admitted: 0, preempted: 0 },
      ...args.permissions(team),
    })),
    capacity: Object.fromEntries(
      Object.entries(snap.snapshot.capacity).map(([flavor, amounts]) => [flavor, { ...amounts }]),
    ),
    canEditScheduler: args.canEditScheduler,
    clusterError: error,
  };
}

/** The snapshot for an answer that needs the cluster; UNAVAILABLE (with the reason) when it cannot be read. */
export async function liveSnapshot(args: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
}): Promise<SnapshotWithJobs> {
  try {
    return await buildGovernanceSnapshot({ db: args.db, source: await args.cluster() });
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError("UNAVAILABLE", `the cluster cannot be read: ${reason}`);
  }
}
