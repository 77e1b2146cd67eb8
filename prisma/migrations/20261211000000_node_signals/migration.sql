-- Issue 33: the node-signal table, changed by cluster admins in the console (one row, id 1).
CREATE TABLE "NodeSignalConfig" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "rules" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedById" UUID,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NodeSignalConfig_pkey" PRIMARY KEY ("id")
);

ALTER TABLE "NodeSignalConfig" ADD CONSTRAINT "NodeSignalConfig_updatedById_fkey" FOREIGN KEY ("updatedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
