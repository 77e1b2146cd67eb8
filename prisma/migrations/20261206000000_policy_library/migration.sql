-- The policy library (issue 12): every policy belongs to a team, has a description and a last-change time;
-- every version keeps its commit message and a link to its author (set null when the user is deleted; the
-- display name in "author" stays). Nothing wrote these tables before, so a policy without a team (never
-- created by any release) is dropped rather than kept unreachable.

DELETE FROM "Policy" WHERE "teamId" IS NULL;

-- AlterTable
ALTER TABLE "Policy" ALTER COLUMN "teamId" SET NOT NULL;
ALTER TABLE "Policy" ADD COLUMN "description" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Policy" ADD COLUMN "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "Policy" ALTER COLUMN "updatedAt" DROP DEFAULT;

-- AlterTable
ALTER TABLE "PolicyVersion" ADD COLUMN "authorId" UUID;
ALTER TABLE "PolicyVersion" ADD COLUMN "message" TEXT NOT NULL DEFAULT '';

-- AddForeignKey
ALTER TABLE "PolicyVersion" ADD CONSTRAINT "PolicyVersion_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
