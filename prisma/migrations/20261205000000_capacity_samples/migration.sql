-- Task governance (issue 11): a team's capacity over time (guaranteed, used, borrowed, lent per flavor and
-- resource), recorded by the console's sampler when it changes (and at least every 10 minutes), kept 7 days.

-- CreateTable
CREATE TABLE "CapacitySample" (
    "id" BIGSERIAL NOT NULL,
    "team" TEXT NOT NULL,
    "flavor" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "guaranteed" DOUBLE PRECISION NOT NULL,
    "used" DOUBLE PRECISION NOT NULL,
    "borrowed" DOUBLE PRECISION NOT NULL,
    "lent" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "CapacitySample_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CapacitySample_team_resource_at_idx" ON "CapacitySample"("team", "resource", "at");

-- CreateIndex
CREATE INDEX "CapacitySample_at_idx" ON "CapacitySample"("at");
