/**
 * Single sign-on settings (docs/sso.md), checked once from the environment: on when an issuer is set, which
 * then needs a client id, a client secret and the console's public URL. Pure, so tests build their own.
 */
export type OidcSettings = {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  scopes: string;
  groupsClaim: string;
  /** On the sign-in button: "Sign in with <name>". */
  name: string;
  /** Where the provider sends the browser back: <public URL>/api/auth/oidc/callback. */
  redirectUri: string;
};

export const OIDC_CALLBACK_PATH = "/api/auth/oidc/callback";

export type OidcEnv = {
  REBOUND_OIDC_ISSUER?: string | undefined;
  REBOUND_OIDC_CLIENT_ID?: string | undefined;
  REBOUND_OIDC_CLIENT_SECRET?: string | undefined;
  REBOUND_OIDC_SCOPES: string;
  REBOUND_OIDC_GROUPS_CLAIM: string;
  REBOUND_OIDC_NAME: string;
  REBOUND_PUBLIC_URL?: string | undefined;
};

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Plain HTTP is for a provider on this machine only (tests, a local dev provider): tokens cross it. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

/** null: single sign-on is off. A string: what is wrong, naming the variable. */
export function parseOidcSettings(values: OidcEnv): OidcSettings | null | { error: string } {
  if (!values.REBOUND_OIDC_ISSUER) return null;
  const issuer = new URL(values.REBOUND_OIDC_ISSUER);
  if (issuer.protocol !== "https:" && !isLoopbackHttp(issuer)) {
    return {
      error: "REBOUND_OIDC_ISSUER: expected an https:// URL (http:// only for 127.0.0.1 or localhost)",
    };
  }
  const { REBOUND_OIDC_CLIENT_ID: clientId, REBOUND_OIDC_CLIENT_SECRET: clientSecret } = values;
  if (!clientId) return { error: "REBOUND_OIDC_CLIENT_ID: required when REBOUND_OIDC_ISSUER is set" };
  if (!clientSecret) return { error: "REBOUND_OIDC_CLIENT_SECRET: required when REBOUND_OIDC_ISSUER is set" };
  if (!values.REBOUND_PUBLIC_URL)
    return { error: "REBOUND_PUBLIC_URL: required when REBOUND_OIDC_ISSUER is set" };
  const scopes = values.REBOUND_OIDC_SCOPES.split(/\s+/).filter(Boolean);
  if (!scopes.includes("openid")) return { error: "REBOUND_OIDC_SCOPES: must include openid" };
  return {
    issuer,
    clientId,
    clientSecret,
    scopes: scopes.join(" "),
    groupsClaim: values.REBOUND_OIDC_GROUPS_CLAIM,
    name: values.REBOUND_OIDC_NAME,
    redirectUri: new URL(OIDC_CALLBACK_PATH, values.REBOUND_PUBLIC_URL).toString(),
  };
}
