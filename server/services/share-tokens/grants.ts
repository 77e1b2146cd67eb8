import { createHash } from "node:crypto";
import type { Db } from "@/server/db/client";
import { isTvView, type ShareGrant } from "@/server/domain/access/share";

/** The TV's credential: an HttpOnly cookie set from `/tv/<view>?token=…` or by pairing (cookie.ts). */
export { SHARE_COOKIE } from "./cookie";
/** The same credential for a non-browser client (curl, a kiosk script). */
export const SHARE_HEADER = "x-rebound-share-token";

/** `lastUsedAt` is written at most this often per token, so 200 TVs do not write on every request. */
const LAST_USED_RESOLUTION_MS = 30_000;

export const hashShareSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

type GrantRow = {
  id: string;
  label: string;
  views: string[];
  allTeams: boolean;
  teamIds: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
};

const grantSelect = {
  id: true,
  label: true,
  views: true,
  allTeams: true,
  teamIds: true,
  revokedAt: true,
  lastUsedAt: true,
} as const;

function toGrant(row: GrantRow): ShareGrant {
  return {
    tokenId: row.id,
    label: row.label,
    views: row.views.filter(isTvView),
    allTeams: row.allTeams,
    teamIds: row.teamIds,
  };
}

/** The grant of a live (not revoked) token, recording its use; null for anything else. */
export async function shareGrantForToken(db: Db, token: string | undefined): Promise<ShareGrant | null> {
  if (!token) return null;
  const row = await db.shareToken.findUnique({
    where: { tokenHash: hashShareSecret(token) },
    select: grantSelect,
  });
  if (!row || row.revokedAt !== null) return null;
  const now = Date.now();
  if (row.lastUsedAt === null || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.shareToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return toGrant(row);
}

/** For open streams: the token's grant now (null once revoked or deleted), so a revocation ends them. */
export async function currentShareGrant(db: Db, tokenId: string): Promise<ShareGrant | null> {
  const row = await db.shareToken.findUnique({ where: { id: tokenId }, select: grantSelect });
  return row && row.revokedAt === null ? toGrant(row) : null;
}
