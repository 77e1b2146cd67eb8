import { randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { Role } from "@/server/domain/access/roles";
import { rolesFromGroups } from "@/server/domain/access/sso";
import { ADMIN_TEAM } from "@/server/services/setup/first-admin";
import { writeAudit } from "@/server/store/audit/mutations";

/** Who the provider says signed in, from a validated ID token (and the userinfo answer for its subject). */
export type OidcProfile = {
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
  groups: readonly string[];
};

export type OidcAccountResult = { ok: true; userId: string } | { ok: false; reason: string };

/**
 * The user an identity-provider account is: found by issuer and subject (an email is not an identity: a
 * provider may let users pick it). The first sign-in of an account links to an existing user with the same
 * email only where the provider says the email is verified, and never to a user another account is linked
 * to; otherwise a user is created, with an unusable password (the argon2 hash of random bytes nobody holds).
 */
async function userFor(tx: Prisma.TransactionClient, profile: OidcProfile): Promise<OidcAccountResult> {
  const linked = await tx.oidcIdentity.findUnique({
    where: { issuer_subject: { issuer: profile.issuer, subject: profile.subject } },
    select: { userId: true },
  });
  if (linked) return { ok: true, userId: linked.userId };
  const existing = await tx.user.findUnique({ where: { email: profile.email }, select: { id: true } });
  if (existing) {
    if (!profile.emailVerified) {
      return {
        ok: false,
        reason: `a user with the email ${profile.email} exists, and the provider does not say the email is verified`,
      };
    }
    const other = await tx.oidcIdentity.findUnique({ where: { userId: existing.id }, select: { id: true } });
    if (other)
      return { ok: false, reason: `the user ${profile.email} signs in with another single sign-on account` };
  }
  const userId =
    existing?.id ??
    (
      await tx.user.create({
        data: {
          email: profile.email,
          name: profile.name,
          passwordHash: await hash(randomBytes(32).toString("base64url")),
        },
        select: { id: true },
      })
    ).id;
  await tx.oidcIdentity.create({ data: { issuer: profile.issuer, subject: profile.subject, userId } });
  return { ok: true, userId };
}

type MembershipChange = { team: string; from: Role | null; to: Role | null };

/**
 * Sets the memberships the group mappings manage to exactly what the user's groups give now: a role changed
 * at the provider changes here, a group taken away removes its access. Memberships made by hand (no
 * OidcMembership row) are left as they are, and a mapping to a team the user holds such a membership in
 * does not touch it.
 */
async function applyGroupMappings(
  tx: Prisma.TransactionClient,
  opts: { userId: string; groups: readonly string[] },
): Promise<MembershipChange[]> {
  const rules = await tx.oidcGroupMapping.findMany({ select: { group: true, teamId: true, role: true } });
  const groups = new Set(opts.groups);
  const needsAdminTeam = rules.some((rule) => rule.teamId === null && groups.has(rule.group));
  const adminTeamId = needsAdminTeam
    ? (
        await tx.team.upsert({
          where: { name: ADMIN_TEAM.name },
          create: ADMIN_TEAM,
          update: {},
          select: { id: true },
        })
      ).id
    : "";
  const wanted = rolesFromGroups({ rules, groups: opts.groups, adminTeamId });
  const held = await tx.membership.findMany({
    where: { userId: opts.userId },
    select: { id: true, teamId: true, role: true, team: { select: { name: true } } },
  });
  const managed = new Set(
    (
      await tx.oidcMembership.findMany({
        where: { membershipId: { in: held.map((membership) => membership.id) } },
        select: { membershipId: true },
      })
    ).map((row) => row.membershipId),
  );
  const changes: MembershipChange[] = [];
  for (const membership of held) {
    const role = wanted.get(membership.teamId);
    wanted.delete(membership.teamId);
    if (!managed.has(membership.id) || role === membership.role) continue;
    if (role === undefined) await tx.membership.delete({ where: { id: membership.id } });
    else await tx.membership.update({ where: { id: membership.id }, data: { role } });
    changes.push({ team: membership.team.name, from: membership.role, to: role ?? null });
  }
  for (const [teamId, role] of wanted) {
    const created = await tx.membership.create({
      data: { userId: opts.userId, teamId, role },
      select: { id: true, team: { select: { name: true } } },
    });
    await tx.oidcMembership.create({ data: { membershipId: created.id } });
    changes.push({ team: created.team.name, from: null, to: role });
  }
  return changes;
}

/**
 * A single sign-on: the user (found, linked or created), their name and groups as the provider says now, and
 * their managed memberships set from the group mappings, in one transaction; a change of access is audited.
 */
export async function signInOidcAccount(db: Db, profile: OidcProfile): Promise<OidcAccountResult> {
  return db.$transaction(async (tx) => {
    const found = await userFor(tx, profile);
    if (!found.ok) return found;
    // One sign-in of a user at a time: two at once would both add the same memberships.
    await tx.$queryRaw`SELECT id FROM "User" WHERE id = ${found.userId}::uuid FOR UPDATE`;
    await tx.user.update({ where: { id: found.userId }, data: { name: profile.name } });
    await tx.oidcIdentity.update({
      where: { userId: found.userId },
      data: { groups: [...profile.groups], lastSignInAt: new Date() },
    });
    const changes = await applyGroupMappings(tx, { userId: found.userId, groups: profile.groups });
    if (changes.length > 0) {
      await writeAudit(tx, {
        userId: found.userId,
        action: "sso.memberships",
        target: `user/${profile.email}`,
        details: { groups: [...profile.groups], changes },
      });
    }
    return found;
  });
}
