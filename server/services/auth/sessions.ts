import { createHash, randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import type { Db } from "@/server/db/client";
import type { Membership } from "@/server/domain/access/roles";

export const SESSION_COOKIE = "rebound_session";
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export type SessionUser = { id: string; email: string; name: string; memberships: Membership[] };

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const userSelect = {
  id: true,
  email: true,
  name: true,
  memberships: { select: { teamId: true, role: true, team: { select: { name: true } } } },
} as const;

type UserRow = {
  id: string;
  email: string;
  name: string;
  memberships: Array<{ teamId: string; role: Membership["role"]; team: { name: string } }>;
};

function toSessionUser(row: UserRow): SessionUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    memberships: row.memberships.map((m) => ({ teamId: m.teamId, teamName: m.team.name, role: m.role })),
  };
}

/**
 * A hash of a random password, made as real ones are (first-admin.ts, seed.ts: argon2's defaults), once per
 * process. An unknown email's password is checked against it, so a sign-in takes as long whether or not the
 * email exists (skipping the hash made unknown emails answer in half the time).
 */
let dummyHash: Promise<string> | undefined;
const dummyPasswordHash = () => {
  dummyHash ??= hash(randomBytes(32).toString("base64url"));
  return dummyHash;
};

/** Checks the password; on success creates a session and returns its cookie token (shown once). */
export async function signIn(
  db: Db,
  credentials: { email: string; password: string },
): Promise<{ ok: true; token: string; user: SessionUser; expiresAt: Date } | { ok: false; reason: string }> {
  const user = await db.user.findUnique({
    where: { email: credentials.email.toLowerCase() },
    select: { ...userSelect, passwordHash: true },
  });
  const valid = await verify(user?.passwordHash ?? (await dummyPasswordHash()), credentials.password);
  if (!user || !valid) return { ok: false, reason: "wrong email or password" };
  const session = await createSession(db, user.id);
  return { ok: true, ...session, user: toSessionUser(user) };
}

/** A new session for a user whose identity is already proven (password above, or single sign-on). */
export async function createSession(db: Db, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db.session.create({ data: { tokenHash: hashToken(token), userId, expiresAt } });
  return { token, expiresAt };
}

export async function userForToken(db: Db, token: string | undefined): Promise<SessionUser | null> {
  if (!token) return null;
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { expiresAt: true, user: { select: userSelect } },
  });
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  return toSessionUser(session.user);
}

export async function signOut(db: Db, token: string | undefined): Promise<void> {
  if (!token) return;
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}
