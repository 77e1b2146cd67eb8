-- AlterTable: repeated identical failures without progress in between (a crash loop) are one record with a count
ALTER TABLE "RestartEvent" ADD COLUMN "count" INTEGER NOT NULL DEFAULT 1;
