import * as oidc from "openid-client";
import { z } from "zod";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import { createSession } from "@/server/services/auth/sessions";
import { signInOidcAccount } from "./accounts";
import { isLoopbackHttp, type OidcSettings } from "./settings";
import {
  decodePendingSignIn,
  encodePendingSignIn,
  OIDC_COOKIE_MAX_AGE_SECONDS,
  type PendingSignIn,
  safeNextPath,
} from "./state-cookie";

/**
 * Sign-in with OpenID Connect: the authorization code flow with PKCE (openid-client, an OpenID Certified
 * relying party). The ID token's signature is checked against the provider's published keys
 * (enableNonRepudiationChecks: without it, a token from the token endpoint is trusted on TLS alone), along
 * with its issuer, audience, expiry and nonce.
 */

const configurations = new Map<string, Promise<oidc.Configuration>>();

/** The provider's metadata, discovered once per process (its keys are fetched and refreshed as needed). */
function configurationFor(settings: OidcSettings): Promise<oidc.Configuration> {
  const key = `${settings.issuer.href} ${settings.clientId}`;
  let configuration = configurations.get(key);
  if (!configuration) {
    const execute = [oidc.enableNonRepudiationChecks];
    if (isLoopbackHttp(settings.issuer)) execute.push(oidc.allowInsecureRequests);
    configuration = oidc
      .discovery(settings.issuer, settings.clientId, settings.clientSecret, undefined, { execute })
      .catch((error: unknown) => {
        configurations.delete(key);
        const reason = error instanceof Error ? error.message : String(error);
        throw new AppError(
          "UNAVAILABLE",
          `the identity provider at ${settings.issuer.href} did not answer: ${reason}`,
        );
      });
    configurations.set(key, configuration);
  }
  return configuration;
}

/** Where to send the browser, and the cookie that the callback checks it against. */
export async function startOidcSignIn(
  settings: OidcSettings,
  opts: { next: string | null },
): Promise<{ url: URL; cookieValue: string }> {
  const configuration = await configurationFor(settings);
  const verifier = oidc.randomPKCECodeVerifier();
  const pending = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier,
    next: safeNextPath(opts.next),
    expiresAt: Date.now() + OIDC_COOKIE_MAX_AGE_SECONDS * 1000,
  };
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: settings.redirectUri,
    scope: settings.scopes,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: pending.state,
    nonce: pending.nonce,
  });
  return { url, cookieValue: encodePendingSignIn(pending) };
}

const groupsSchema = z.union([
  z.array(z.string().max(256)).max(1000),
  z
    .string()
    .max(256)
    .transform((group) => [group]),
]);

/** The user's profile from the ID token's claims and the userinfo answer (for the same subject). */
function profileFrom(settings: OidcSettings, claims: Record<string, unknown>) {
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!z.email().safeParse(email).success) {
    return {
      ok: false as const,
      reason: "the identity provider sent no email address (ask for the email scope)",
    };
  }
  const groups = groupsSchema.safeParse(claims[settings.groupsClaim] ?? []);
  if (!groups.success) {
    return { ok: false as const, reason: `the ${settings.groupsClaim} claim is not a list of group names` };
  }
  const name = [claims.name, claims.preferred_username].find(
    (value) => typeof value === "string" && value !== "",
  );
  return {
    ok: true as const,
    email,
    emailVerified: claims.email_verified === true || claims.email_verified === "true",
    name: typeof name === "string" ? name.slice(0, 200) : email,
    groups: [...new Set(groups.data)],
  };
}

/**
 * The code redeemed with this browser's PKCE verifier, the ID token validated (signature, issuer, audience,
 * expiry, the pending sign-in's state and nonce), and the claims of the ID token and of userinfo.
 */
async function redeemCode(
  settings: OidcSettings,
  opts: { search: URLSearchParams; pending: PendingSignIn },
): Promise<{ ok: true; claims: Record<string, unknown> } | { ok: false; reason: string }> {
  const configuration = await configurationFor(settings);
  // The redirect URI as registered, whatever address the request reached us at (a proxy in front).
  const currentUrl = new URL(settings.redirectUri);
  currentUrl.search = opts.search.toString();
  try {
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: opts.pending.verifier,
      expectedState: opts.pending.state,
      expectedNonce: opts.pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) return { ok: false, reason: "the identity provider sent no ID token" };
    const userinfo = configuration.serverMetadata().userinfo_endpoint
      ? await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
      : {};
    // The ID token's claims win; userinfo adds those the provider keeps out of the ID token (groups, email).
    return { ok: true, claims: { ...userinfo, ...idClaims } };
  } catch (error) {
    return { ok: false, reason: describeOidcError(error) };
  }
}

/**
 * openid-client's errors say what failed in their cause (the claim, the signature, the state) or, for the
 * provider's own refusal, in `error` (invalid_grant, …). Expected values are never put in the reason.
 */
function describeOidcError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.cause instanceof Error) return error.cause.message;
  const oauthError = (error as Error & { error?: unknown }).error;
  return typeof oauthError === "string" ? `${error.message}: ${oauthError}` : error.message;
}

export type OidcCallbackResult =
  | { ok: true; token: string; expiresAt: Date; next: string }
  | { ok: false; reason: string };

/**
 * The provider's redirect back: the cookie's state must match (this browser started this sign-in), the code
 * is redeemed with this browser's PKCE verifier, the ID token is validated, and the user signs in with the
 * memberships their groups give now (accounts.ts). Every refusal is a reason, never a session.
 */
export async function finishOidcSignIn(
  db: Db,
  settings: OidcSettings,
  opts: { search: URLSearchParams; cookieValue: string | undefined; log: Logger },
): Promise<OidcCallbackResult> {
  const pending = decodePendingSignIn(opts.cookieValue);
  if (!pending)
    return { ok: false, reason: "this sign-in expired or began in another browser: sign in again" };
  const providerError = opts.search.get("error");
  if (providerError !== null) {
    const code = /^[\w.-]{1,64}$/.test(providerError) ? providerError : "an error";
    return { ok: false, reason: `the identity provider answered ${code}` };
  }
  const redeemed = await redeemCode(settings, { search: opts.search, pending });
  if (!redeemed.ok) {
    opts.log.warn("single sign-on refused", { reason: redeemed.reason });
    return { ok: false, reason: `single sign-on failed: ${redeemed.reason}` };
  }
  const claims = redeemed.claims;
  const profile = profileFrom(settings, claims);
  if (!profile.ok) return profile;
  const account = await signInOidcAccount(db, {
    issuer: String(claims.iss),
    subject: String(claims.sub),
    ...profile,
  });
  if (!account.ok) return account;
  const session = await createSession(db, account.userId);
  return { ok: true, ...session, next: pending.next };
}
