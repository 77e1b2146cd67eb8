-- TV share tokens (issue 13): scoped to views and teams, last use recorded, and pairing by a short code.
-- A token made for pairing has no tokenHash until a TV redeems its code; the code itself is stored hashed.
ALTER TABLE "ShareToken" ALTER COLUMN "tokenHash" DROP NOT NULL;
ALTER TABLE "ShareToken" ADD COLUMN "views" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "ShareToken" ADD COLUMN "allTeams" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "ShareToken" ADD COLUMN "teamIds" UUID[] NOT NULL DEFAULT ARRAY[]::UUID[];
ALTER TABLE "ShareToken" ADD COLUMN "lastUsedAt" TIMESTAMP(3);
ALTER TABLE "ShareToken" ADD COLUMN "pairingCodeHash" TEXT;
ALTER TABLE "ShareToken" ADD COLUMN "pairingExpiresAt" TIMESTAMP(3);
CREATE UNIQUE INDEX "ShareToken_pairingCodeHash_key" ON "ShareToken"("pairingCodeHash");
