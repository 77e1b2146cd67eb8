-- Issue 12: the policy a recovery ran under, and shadow rule sets' verdicts (what would have happened).
ALTER TABLE "RestartEvent" ADD COLUMN "policy" TEXT;

CREATE TABLE "ShadowVerdict" (
    "id" UUID NOT NULL,
    "jobUid" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "pod" TEXT NOT NULL,
    "rank" INTEGER NOT NULL,
    "rule" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "line" TEXT,
    "wouldAction" TEXT NOT NULL,
    "policy" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ShadowVerdict_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "ShadowVerdict_jobUid_at_idx" ON "ShadowVerdict"("jobUid", "at");
CREATE INDEX "ShadowVerdict_namespace_jobName_at_idx" ON "ShadowVerdict"("namespace", "jobName", "at");
