-- Goodput as training progress (issue 14): each restart row records the job's progress around the fault.
-- progressStep/progressAt: the job's last step before the fault and its time (the stalled rank's last step
-- line, or the crash); resumeStep: the step training restarted from (checkpoint step, or the same step after
-- a peer recovery); resumedAt: progress back at progressStep or later. All nullable: older rows have none.
ALTER TABLE "RestartEvent" ADD COLUMN "progressStep" INTEGER;
ALTER TABLE "RestartEvent" ADD COLUMN "progressAt" TIMESTAMP(3);
ALTER TABLE "RestartEvent" ADD COLUMN "resumeStep" INTEGER;
ALTER TABLE "RestartEvent" ADD COLUMN "resumedAt" TIMESTAMP(3);
