-- Waiting apart from recovering (issue 36): of a restart's detected → recovered, the milliseconds spent
-- waiting out the crash-loop back-off before the agents were started again. 0 on older rows.
ALTER TABLE "RestartEvent" ADD COLUMN "waitMs" INTEGER NOT NULL DEFAULT 0;
