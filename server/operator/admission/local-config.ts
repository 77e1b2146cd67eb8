import type { Db } from "@/server/db/client";
import type { GovernanceConfig } from "@/server/domain/governance/types";
import { loadGovernanceConfig } from "@/server/store/governance/config";

/**
 * The governance configuration the local admission decides with, read from Postgres. Governed teams are
 * those with a ComputeQuota row: a job in any other namespace runs as HyperPod runs it without task
 * governance. `fingerprint` changes whenever anything a decision reads changes.
 */
export type LoadedConfig = { config: GovernanceConfig; governed: ReadonlySet<string>; fingerprint: string };

export async function loadLocalConfig(db: Db): Promise<LoadedConfig> {
  const [config, quotas] = await Promise.all([
    loadGovernanceConfig(db),
    db.computeQuota.findMany({ select: { team: { select: { name: true } } } }),
  ]);
  const governed = new Set(quotas.map((quota) => quota.team.name));
  return { config, governed, fingerprint: JSON.stringify([config, [...governed].sort()]) };
}
