import type { Db } from "@/server/db/client";
import { type ShareGrant, TV_VIEWS, type TvView } from "@/server/domain/access/share";
import { scopeOfGrant, scopeOfMemberships, type TvScope } from "@/server/domain/tv/scope";
import { AppError } from "@/server/errors";
import { type SessionUser, userForToken } from "@/server/services/auth/sessions";
import { currentShareGrant } from "@/server/services/share-tokens/grants";
import { liveHub } from "@/server/services/wiring";

/**
 * How long one look-up of a token's grant serves every open stream of that token (200 TVs on one token ask
 * every 2 s each): a revocation still ends them within RECHECK_ACCESS_MS plus this.
 */
const GRANT_RECHECK_TTL_MS = 500;

/** Who watches a TV view (server/api/trpc.ts viewerProcedure's viewer). */
export type TvViewer = { kind: "user"; user: SessionUser } | { kind: "share"; grant: ShareGrant };

/** The views a viewer may open: a token's own, every view for a signed-in user. */
export function tvViewsOf(viewer: TvViewer): TvView[] {
  return viewer.kind === "share"
    ? TV_VIEWS.filter((view) => viewer.grant.views.includes(view))
    : [...TV_VIEWS];
}

export function tvScopeOf(viewer: TvViewer): TvScope {
  return viewer.kind === "share" ? scopeOfGrant(viewer.grant) : scopeOfMemberships(viewer.user.memberships);
}

/** The viewer's scope for this view, or FORBIDDEN when a token does not include the view. */
export function requireTvView(viewer: TvViewer, view: TvView): TvScope {
  if (!tvViewsOf(viewer).includes(view))
    throw new AppError("FORBIDDEN", `this token does not include the ${view} view`);
  return tvScopeOf(viewer);
}

/**
 * The viewer as it stands now, for an open stream's recheck: UNAUTHORIZED once the token was revoked or the
 * session ended.
 */
export async function currentTvViewer(
  db: Db,
  opts: { viewer: TvViewer; sessionToken: string | undefined },
): Promise<TvViewer> {
  if (opts.viewer.kind === "share") {
    // Every screen showing this token rechecks it: one read per GRANT_RECHECK_TTL_MS serves them all.
    const { tokenId } = opts.viewer.grant;
    const grant = await liveHub().cached(`share-grant:${tokenId}`, GRANT_RECHECK_TTL_MS, () =>
      currentShareGrant(db, tokenId),
    );
    if (!grant) throw new AppError("UNAUTHORIZED", "this TV's share token was revoked");
    return { kind: "share", grant };
  }
  const user = await userForToken(db, opts.sessionToken);
  if (!user) throw new AppError("UNAUTHORIZED", "the session ended: sign in again");
  return { kind: "user", user };
}
