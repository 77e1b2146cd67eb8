import { createHash, randomBytes } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type {
  CreatedShareToken,
  CreateShareTokenInput,
  ShareTokenView,
} from "@/server/services/share-tokens/share-tokens.schema";
import { writeAudit } from "@/server/store/audit/mutations";
import { hashShareSecret } from "./grants";
import { formatPairingCode, PAIRING_CODE_LENGTH, PAIRING_TTL_MS, pairingCodeFrom } from "./pairing-code";
import { teamNamesOf, tokenViewSelect, toTokenView } from "./queries";

/** A pairing code is stored as its SHA-256, like the secret (a code is short-lived, but never kept clear). */
export const hashPairingCode = (code: string) => createHash("sha256").update(`pairing:${code}`).digest("hex");

/** 32 random bytes, base64url: the secret a link or a pairing gives a TV (shown once, stored hashed). */
export const newShareSecret = () => randomBytes(32).toString("base64url");

const target = (id: string) => `shareToken/${id}`;

async function checkTeams(tx: Prisma.TransactionClient, teamIds: readonly string[]) {
  if (teamIds.length === 0) return;
  const found = await tx.team.findMany({ where: { id: { in: [...teamIds] } }, select: { id: true } });
  const known = new Set(found.map((team) => team.id));
  const missing = teamIds.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new AppError("INVALID", `teamIds: no team with id ${missing.join(", ")}: choose teams that exist`);
}

/**
 * A new token, audited. A link token gets its secret now (returned once with its link); a pairing token
 * gets a short code instead, valid 10 minutes, and its secret when a TV redeems the code.
 */
export async function createShareToken(
  db: Db,
  args: { input: CreateShareTokenInput; actorId: string },
): Promise<CreatedShareToken> {
  const { input, actorId } = args;
  const secret = input.pairing ? null : newShareSecret();
  const code = input.pairing ? pairingCodeFrom(randomBytes(PAIRING_CODE_LENGTH)) : null;
  const expiresAt = input.pairing ? new Date(Date.now() + PAIRING_TTL_MS) : null;
  const token = await db.$transaction(async (tx) => {
    await checkTeams(tx, input.teamIds);
    const row = await tx.shareToken.create({
      data: {
        label: input.label,
        views: input.views,
        allTeams: input.allTeams,
        teamIds: input.allTeams ? [] : input.teamIds,
        tokenHash: secret === null ? null : hashShareSecret(secret),
        pairingCodeHash: code === null ? null : hashPairingCode(code),
        pairingExpiresAt: expiresAt,
        createdById: actorId,
      },
      select: tokenViewSelect,
    });
    const view = toTokenView(row, await teamNamesOf(tx), Date.now());
    await writeAudit(tx, {
      userId: actorId,
      action: "shareToken.create",
      target: target(row.id),
      details: {
        before: null,
        after: {
          label: view.label,
          views: view.views,
          teams: view.allTeams ? "all" : view.teams.map((team) => team.name),
          delivery: input.pairing ? "pairing code" : "link",
        },
      },
    });
    return view;
  });
  if (secret !== null) {
    const params = new URLSearchParams({ token: secret });
    return { kind: "link", token, secret, link: `/tv/${token.views[0]}?${params}` };
  }
  return { kind: "pairing", token, code: formatPairingCode(code ?? ""), expiresAt: expiresAt ?? new Date() };
}

/**
 * Revokes a token: every request with it is refused from now on and its open streams end within seconds
 * (currentShareGrant). Idempotent: revoking a revoked token changes nothing and writes no second audit row.
 */
export async function revokeShareToken(
  db: Db,
  args: { id: string; actorId: string },
): Promise<ShareTokenView> {
  return db.$transaction(async (tx) => {
    const revoked = await tx.shareToken.updateMany({
      where: { id: args.id, revokedAt: null },
      data: { revokedAt: new Date(), pairingCodeHash: null },
    });
    const row = await tx.shareToken.findUnique({ where: { id: args.id }, select: tokenViewSelect });
    if (!row) throw new AppError("NOT_FOUND", `id: no share token ${args.id}`);
    if (revoked.count > 0)
      await writeAudit(tx, {
        userId: args.actorId,
        action: "shareToken.revoke",
        target: target(row.id),
        details: { label: row.label, before: "active", after: "revoked" },
      });
    return toTokenView(row, await teamNamesOf(tx), Date.now());
  });
}
