import type { Db } from "@/server/db/client";
import type { Role } from "@/server/domain/access/roles";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/store/audit/mutations";

/** A team's members and their roles (Membership rows). */
export type Member = { userId: string; name: string; email: string; role: Role };

export async function listMembers(db: Db, team: string): Promise<{ teamId: string; members: Member[] }> {
  const row = await db.team.findUnique({
    where: { name: team },
    select: {
      id: true,
      memberships: {
        select: { role: true, user: { select: { id: true, name: true, email: true } } },
        orderBy: { user: { name: "asc" } },
      },
    },
  });
  if (!row) throw new AppError("NOT_FOUND", `no team named ${team}`);
  return {
    teamId: row.id,
    members: row.memberships.map(({ role, user }) => ({
      userId: user.id,
      name: user.name,
      email: user.email,
      role,
    })),
  };
}

export type SetRole = {
  team: string;
  userId: string;
  role: Role;
  /** The role the caller read (null: not a member); undefined: not checked. */
  previousRole?: Role | null;
  actorId: string;
  /** The caller's rule (server/domain/access/governance.ts canSetRole) for a change from `from`. */
  allowed: (from: Role | null) => boolean;
  /** Whether the caller is a cluster admin (who may take a team's last team admin away). */
  actorIsClusterAdmin: boolean;
};

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Serialises membership changes, so two admins removing each other cannot both pass the last-admin check. */
const MEMBERSHIP_LOCK_KEY = 3_401_006;

/**
 * Refuses a change that would leave the cluster without a cluster admin (nobody could change anything then),
 * or one by a team admin that would leave the team without a team admin (nobody in the team could change its
 * members). A cluster admin may take a team's last team admin away: they administer every team themselves
 * (server/domain/access/roles.ts hasTeamRole), so the team is never left unmanaged, and a seeded team can
 * have none (server/db/seed.ts, vision). `from` is the member's role now, `to` the role after (null: removed).
 */
async function keepLastAdmins(
  tx: Tx,
  change: {
    teamId: string;
    team: string;
    userId: string;
    name: string;
    from: Role;
    to: Role | null;
    actorIsClusterAdmin: boolean;
  },
): Promise<void> {
  const { teamId, team, userId, name, from, to } = change;
  if (from === "team_admin" && to !== "team_admin" && !change.actorIsClusterAdmin) {
    const others = await tx.membership.count({
      where: { teamId, role: "team_admin", userId: { not: userId } },
    });
    if (others === 0) {
      throw new AppError(
        "CONFLICT",
        `${name} is the last team admin of ${team}: make another member team admin first`,
      );
    }
  }
  if (from === "cluster_admin" && to !== "cluster_admin") {
    const others = await tx.membership.count({
      where: { role: "cluster_admin", NOT: { userId, teamId } },
    });
    if (others === 0) {
      throw new AppError(
        "CONFLICT",
        `${name} is the last cluster admin: make someone else cluster admin first`,
      );
    }
  }
}

/** The team, the user and the user's role there now (null: not a member), or NOT_FOUND. */
async function current(tx: Tx, change: { team: string; userId: string }) {
  const team = await tx.team.findUnique({ where: { name: change.team }, select: { id: true } });
  if (!team) throw new AppError("NOT_FOUND", `team: no team named ${change.team}`);
  const user = await tx.user.findUnique({
    where: { id: change.userId },
    select: { id: true, name: true, email: true },
  });
  if (!user) throw new AppError("NOT_FOUND", `userId: no user with id ${change.userId}`);
  const membership = await tx.membership.findUnique({
    where: { userId_teamId: { userId: user.id, teamId: team.id } },
    select: { role: true },
  });
  return { team, user, from: membership?.role ?? null };
}

function check(change: SetRole, found: { user: { name: string }; from: Role | null }): void {
  const { user, from } = found;
  if (!change.allowed(from) && from === null) {
    throw new AppError(
      "FORBIDDEN",
      `${user.name} is not a member of ${change.team}: only a cluster admin adds users to a team`,
    );
  }
  if (!change.allowed(from)) {
    const now = from ? ` (${from})` : "";
    throw new AppError(
      "FORBIDDEN",
      `you may not change ${user.name}'s role in ${change.team}${now} to ${change.role}`,
    );
  }
  if (change.previousRole !== undefined && change.previousRole !== from) {
    throw new AppError(
      "CONFLICT",
      `${user.name}'s role in ${change.team} is now ${from ?? "none"}, not ${change.previousRole ?? "none"}; reload to see the change`,
    );
  }
}

/**
 * Gives a user a role in a team (adding the membership if there is none), in one transaction with its audit
 * row. Refused when the rule says no (FORBIDDEN), the user does not exist (NOT_FOUND) or the role is not the
 * one the caller read (CONFLICT); nothing changes then.
 */
export async function setMemberRole(db: Db, change: SetRole): Promise<Member> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_KEY})`;
    const found = await current(tx, change);
    check(change, found);
    const { team, user, from } = found;
    if (from !== null) {
      await keepLastAdmins(tx, {
        teamId: team.id,
        team: change.team,
        userId: user.id,
        name: user.name,
        from,
        to: change.role,
        actorIsClusterAdmin: change.actorIsClusterAdmin,
      });
    }
    await tx.membership.upsert({
      where: { userId_teamId: { userId: user.id, teamId: team.id } },
      create: { userId: user.id, teamId: team.id, role: change.role },
      update: { role: change.role },
    });
    await writeAudit(tx, {
      userId: change.actorId,
      action: "member.setRole",
      target: `team/${change.team}/member/${user.id}`,
      details: { user: user.email, before: from, after: change.role },
    });
    return { userId: user.id, name: user.name, email: user.email, role: change.role };
  });
}

export type RemoveMember = {
  team: string;
  userId: string;
  /** The role the caller read; undefined: not checked. */
  previousRole?: Role;
  actorId: string;
  /** The caller's rule (server/domain/access/governance.ts canRemoveMember) for a member with this role. */
  allowed: (role: Role) => boolean;
  actorIsClusterAdmin: boolean;
};

/**
 * Removes a user from a team, in one transaction with its audit row (before: the role, after: null). Refused
 * when the user is not a member (NOT_FOUND), the rule says no (FORBIDDEN), the role is not the one the caller
 * read, or the last admins would go (CONFLICT, keepLastAdmins); nothing changes then.
 */
export async function removeMember(db: Db, change: RemoveMember): Promise<{ userId: string; removed: Role }> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_KEY})`;
    const { team, user, from } = await current(tx, change);
    if (from === null)
      throw new AppError("NOT_FOUND", `userId: ${user.name} is not a member of ${change.team}`);
    if (!change.allowed(from)) {
      throw new AppError("FORBIDDEN", `you may not remove ${user.name} (${from}) from ${change.team}`);
    }
    if (change.previousRole !== undefined && change.previousRole !== from) {
      throw new AppError(
        "CONFLICT",
        `${user.name}'s role in ${change.team} is now ${from}, not ${change.previousRole}; reload to see the change`,
      );
    }
    await keepLastAdmins(tx, {
      teamId: team.id,
      team: change.team,
      userId: user.id,
      name: user.name,
      from,
      to: null,
      actorIsClusterAdmin: change.actorIsClusterAdmin,
    });
    await tx.membership.delete({ where: { userId_teamId: { userId: user.id, teamId: team.id } } });
    await writeAudit(tx, {
      userId: change.actorId,
      action: "member.remove",
      target: `team/${change.team}/member/${user.id}`,
      details: { user: user.email, before: from, after: null },
    });
    return { userId: user.id, removed: from };
  });
}

/** How many team admins a team's member list holds (the list shows which members may be removed). */
export function teamAdminCount(members: readonly Member[]): number {
  return members.filter((member) => member.role === "team_admin").length;
}
