-- Issue 14: the scaling history of elastic jobs (one row per scaling, written when it ends).
CREATE TABLE "ScalingEvent" (
    "id" TEXT NOT NULL,
    "jobUid" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "fromReplicas" INTEGER NOT NULL,
    "toReplicas" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ScalingEvent_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "ScalingEvent_jobUid_startedAt_idx" ON "ScalingEvent"("jobUid", "startedAt");
CREATE INDEX "ScalingEvent_namespace_jobName_startedAt_idx" ON "ScalingEvent"("namespace", "jobName", "startedAt");
