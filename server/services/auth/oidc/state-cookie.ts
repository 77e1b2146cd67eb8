import { z } from "zod";

/**
 * What a sign-in started here must match when the provider sends the browser back: the state (the callback
 * belongs to this browser's sign-in), the nonce (the ID token was minted for it) and the PKCE verifier (only
 * this browser can redeem the code). Kept in the browser, in a short-lived HttpOnly SameSite=Lax cookie
 * (Lax: the provider's redirect back is a top-level GET, which carries it), and cleared by the callback.
 */
export const OIDC_COOKIE = "rebound_oidc";
export const OIDC_COOKIE_MAX_AGE_SECONDS = 600;

const pendingSignInSchema = z.object({
  state: z.string().min(16),
  nonce: z.string().min(16),
  verifier: z.string().min(43),
  /** Where to go once signed in: a path on this console. */
  next: z.string(),
  /** Milliseconds since the epoch: a cookie kept past its Max-Age is refused anyway. */
  expiresAt: z.number(),
});

export type PendingSignIn = z.infer<typeof pendingSignInSchema>;

export function encodePendingSignIn(pending: PendingSignIn): string {
  return Buffer.from(JSON.stringify(pending)).toString("base64url");
}

export function decodePendingSignIn(value: string | undefined, now = Date.now()): PendingSignIn | null {
  if (!value) return null;
  try {
    const parsed = pendingSignInSchema.safeParse(
      JSON.parse(Buffer.from(value, "base64url").toString("utf8")),
    );
    if (!parsed.success || parsed.data.expiresAt <= now) return null;
    return parsed.data;
  } catch {
    return null;
  }
}

export function pendingSignInCookie(opts: {
  value: string;
  secure: boolean;
  maxAgeSeconds?: number;
}): string {
  const maxAge = opts.maxAgeSeconds ?? OIDC_COOKIE_MAX_AGE_SECONDS;
  return `${OIDC_COOKIE}=${opts.value}; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${opts.secure ? "; Secure" : ""}`;
}

/** A path on this console to go to after sign-in; anything else (another origin, `//host`) goes to /jobs. */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/jobs";
  return next;
}

/** Why the last single sign-on failed, for the sign-in page to show once (a minute at most). */
export const SSO_ERROR_COOKIE = "rebound_sso_error";

export function ssoErrorCookie(opts: { reason: string; secure: boolean }): string {
  const value = encodeURIComponent(opts.reason.slice(0, 300));
  return `${SSO_ERROR_COOKIE}=${value}; Path=/sign-in; HttpOnly; SameSite=Lax; Max-Age=60${opts.secure ? "; Secure" : ""}`;
}
