-- AlterTable: restart records belong to one job's uid (rows from before this migration keep null: no current run)
ALTER TABLE "RestartEvent" ADD COLUMN "jobUid" TEXT;

-- CreateIndex
CREATE INDEX "RestartEvent_jobUid_faultAt_idx" ON "RestartEvent"("jobUid", "faultAt");

-- CreateTable
CREATE TABLE "JobEvent" (
    "id" UUID NOT NULL,
    "jobUid" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "JobEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JobRun" (
    "uid" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),
    "phase" TEXT,
    "reason" TEXT,

    CONSTRAINT "JobRun_pkey" PRIMARY KEY ("uid")
);

-- CreateIndex
CREATE INDEX "JobEvent_jobUid_lastAt_idx" ON "JobEvent"("jobUid", "lastAt");

-- CreateIndex
CREATE INDEX "JobEvent_lastAt_idx" ON "JobEvent"("lastAt");

-- CreateIndex
CREATE INDEX "JobRun_namespace_jobName_createdAt_idx" ON "JobRun"("namespace", "jobName", "createdAt");
