-- Single sign-on (issue 38): group → role rules, identity-provider accounts, and which memberships the rules
-- made (so a group taken away removes its access at the next sign-in, and hand-made memberships stay).
CREATE TABLE "OidcGroupMapping" (
    "id" UUID NOT NULL,
    "group" TEXT NOT NULL,
    "teamId" UUID,
    "role" "Role" NOT NULL,
    "createdById" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OidcGroupMapping_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "OidcGroupMapping_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OidcGroupMapping_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    -- A team rule gives a team role; a cluster-wide rule (no team) gives cluster_admin.
    CONSTRAINT "OidcGroupMapping_role_check" CHECK (("teamId" IS NULL) = ("role" = 'cluster_admin'))
);
CREATE UNIQUE INDEX "OidcGroupMapping_group_teamId_key" ON "OidcGroupMapping"("group", "teamId");
-- NULLs are distinct in the index above: one cluster-wide rule per group is kept by this one.
CREATE UNIQUE INDEX "OidcGroupMapping_group_cluster_key" ON "OidcGroupMapping"("group") WHERE "teamId" IS NULL;

CREATE TABLE "OidcIdentity" (
    "id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "groups" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "lastSignInAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OidcIdentity_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "OidcIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "OidcIdentity_userId_key" ON "OidcIdentity"("userId");
CREATE UNIQUE INDEX "OidcIdentity_issuer_subject_key" ON "OidcIdentity"("issuer", "subject");

CREATE TABLE "OidcMembership" (
    "membershipId" UUID NOT NULL,

    CONSTRAINT "OidcMembership_pkey" PRIMARY KEY ("membershipId"),
    CONSTRAINT "OidcMembership_membershipId_fkey" FOREIGN KEY ("membershipId") REFERENCES "Membership"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
