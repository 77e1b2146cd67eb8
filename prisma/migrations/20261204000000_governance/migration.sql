-- Task governance (issue 11): one ComputeQuota per team (HyperPod's ComputeQuota, versioned), its
-- guaranteed amounts per instance type and resource in ComputeQuotaResource, and versions on the
-- scheduler config. Rows of the per-resource table of the first cut are carried over.

-- CreateEnum
CREATE TYPE "ActivationState" AS ENUM ('Enabled', 'Disabled');

ALTER TABLE "ComputeQuota" RENAME TO "ComputeQuotaLegacy";
ALTER TABLE "ComputeQuotaLegacy" RENAME CONSTRAINT "ComputeQuota_pkey" TO "ComputeQuotaLegacy_pkey";
ALTER TABLE "ComputeQuotaLegacy" DROP CONSTRAINT "ComputeQuota_teamId_fkey";
DROP INDEX "ComputeQuota_teamId_resource_key";

-- CreateTable
CREATE TABLE "ComputeQuota" (
    "id" UUID NOT NULL,
    "teamId" UUID NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "activation" "ActivationState" NOT NULL DEFAULT 'Enabled',
    "borrowStrategy" "BorrowStrategy" NOT NULL DEFAULT 'LendAndBorrow',
    "borrowLimitPercent" INTEGER NOT NULL DEFAULT 50,
    "preemptPolicy" "PreemptPolicy" NOT NULL DEFAULT 'LowerPriority',
    "fairShareWeight" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedById" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ComputeQuota_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ComputeQuotaResource" (
    "id" UUID NOT NULL,
    "quotaId" UUID NOT NULL,
    "instanceType" TEXT NOT NULL DEFAULT 'default',
    "resource" TEXT NOT NULL,
    "guaranteed" DECIMAL(20,3) NOT NULL,
    "absoluteBorrowLimit" DECIMAL(20,3),

    CONSTRAINT "ComputeQuotaResource_pkey" PRIMARY KEY ("id")
);

-- Carry over: one quota per team, its settings from the team's GPU row (else its first row).
INSERT INTO "ComputeQuota" ("id", "teamId", "borrowStrategy", "borrowLimitPercent", "preemptPolicy", "fairShareWeight", "updatedAt")
SELECT DISTINCT ON ("teamId") "id", "teamId", "borrowStrategy", "borrowLimitPercent", "preemptPolicy", "fairShareWeight", "updatedAt"
FROM "ComputeQuotaLegacy"
ORDER BY "teamId", ("resource" = 'nvidia.com/gpu') DESC, "resource";

INSERT INTO "ComputeQuotaResource" ("id", "quotaId", "resource", "guaranteed", "absoluteBorrowLimit")
SELECT legacy."id", quota."id", legacy."resource", legacy."guaranteed", legacy."absoluteBorrowLimit"
FROM "ComputeQuotaLegacy" legacy JOIN "ComputeQuota" quota ON quota."teamId" = legacy."teamId";

DROP TABLE "ComputeQuotaLegacy";

-- AlterTable
ALTER TABLE "SchedulerConfig" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "updatedById" UUID;

-- CreateIndex
CREATE UNIQUE INDEX "ComputeQuota_teamId_key" ON "ComputeQuota"("teamId");

-- CreateIndex
CREATE UNIQUE INDEX "ComputeQuotaResource_quotaId_instanceType_resource_key" ON "ComputeQuotaResource"("quotaId", "instanceType", "resource");

-- AddForeignKey
ALTER TABLE "ComputeQuota" ADD CONSTRAINT "ComputeQuota_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ComputeQuota" ADD CONSTRAINT "ComputeQuota_updatedById_fkey" FOREIGN KEY ("updatedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ComputeQuotaResource" ADD CONSTRAINT "ComputeQuotaResource_quotaId_fkey" FOREIGN KEY ("quotaId") REFERENCES "ComputeQuota"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SchedulerConfig" ADD CONSTRAINT "SchedulerConfig_updatedById_fkey" FOREIGN KEY ("updatedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
