import type { Db } from "@/server/db/client";
import type { Role } from "@/server/domain/access/roles";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/services/audit/mutations";

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
};

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The team, the user and the user's role there now (null: not a member), or NOT_FOUND. */
async function current(tx: Tx, change: SetRole) {
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
    const found = await current(tx, change);
    check(change, found);
    const { team, user, from } = found;
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
