/**
 * The TV's credential: an HttpOnly cookie set from `/tv/<view>?token=…` (proxy.ts) or by pairing. Kept here,
 * free of Node and database imports, so proxy.ts can set it; grants.ts re-exports it.
 */
export const SHARE_COOKIE = "rebound_share";

/** A TV keeps its token as long as browsers allow a cookie to live (400 days, RFC 6265bis). */
export const SHARE_COOKIE_MAX_AGE_S = 400 * 24 * 3600;

/** A share secret as sent in a link: base64url, as `createShareToken` makes them (43 characters). */
export const SHARE_SECRET_PATTERN = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * The TV's credential cookie: HttpOnly (no script reads it), SameSite=Lax, the whole console's path, and
 * Secure whenever the console is reached over HTTPS. `value` "" with maxAge 0 clears it.
 */
export function shareCookie(opts: { value: string; secure: boolean; maxAgeSeconds?: number }): string {
  const maxAge = opts.maxAgeSeconds ?? SHARE_COOKIE_MAX_AGE_S;
  return `${SHARE_COOKIE}=${encodeURIComponent(opts.value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${opts.secure ? "; Secure" : ""}`;
}
