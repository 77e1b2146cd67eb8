-- A team's advanced Kueue settings (issue 37): reclaimWithinCohort, borrowWithinCohort, lendingLimit,
-- queueingStrategy and withinClusterQueue, validated by the governance schema before they are written.
-- NULL on older rows: the defaults (server/domain/governance/kueue-settings.ts).
ALTER TABLE "ComputeQuota" ADD COLUMN "kueueSettings" JSONB;
