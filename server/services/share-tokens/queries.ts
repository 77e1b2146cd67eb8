import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { isTvView } from "@/server/domain/access/share";
import type { ShareTokenState, ShareTokenView } from "@/server/services/share-tokens/share-tokens.schema";

/** The columns a token's view is made of: never tokenHash nor pairingCodeHash. */
export const tokenViewSelect = {
  id: true,
  label: true,
  views: true,
  allTeams: true,
  teamIds: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  pairingExpiresAt: true,
  createdBy: { select: { id: true, name: true } },
} satisfies Prisma.ShareTokenSelect;

type TokenRow = Prisma.ShareTokenGetPayload<{ select: typeof tokenViewSelect }>;

function stateOf(row: TokenRow, now: number): ShareTokenState {
  if (row.revokedAt !== null) return "revoked";
  if (row.pairingExpiresAt === null) return "active";
  return row.pairingExpiresAt.getTime() > now ? "pairing" : "pairing-expired";
}

/** A row as the admin sees it; `teamNames` maps team ids to names. */
export function toTokenView(
  row: TokenRow,
  teamNames: ReadonlyMap<string, string>,
  now: number,
): ShareTokenView {
  return {
    id: row.id,
    label: row.label,
    views: row.views.filter(isTvView),
    allTeams: row.allTeams,
    teams: row.allTeams ? [] : row.teamIds.map((id) => ({ id, name: teamNames.get(id) ?? "(deleted team)" })),
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    pairingExpiresAt: row.pairingExpiresAt,
    state: stateOf(row, now),
  };
}

export async function teamNamesOf(db: Prisma.TransactionClient | Db): Promise<Map<string, string>> {
  const teams = await db.team.findMany({ select: { id: true, name: true } });
  return new Map(teams.map((team) => [team.id, team.name]));
}

/** Every token, live ones first, newest first within each. */
export async function listShareTokens(db: Db): Promise<ShareTokenView[]> {
  const [rows, names] = await Promise.all([
    db.shareToken.findMany({
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      select: tokenViewSelect,
    }),
    teamNamesOf(db),
  ]);
  const now = Date.now();
  const views = rows.map((row) => toTokenView(row, names, now));
  return [...views.filter((v) => v.state !== "revoked"), ...views.filter((v) => v.state === "revoked")];
}
