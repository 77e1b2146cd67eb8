import { describe, expect, it } from "vitest";
import { type OidcEnv, parseOidcSettings } from "./settings";
import { decodePendingSignIn, encodePendingSignIn, safeNextPath } from "./state-cookie";

const base: OidcEnv = {
  REBOUND_OIDC_ISSUER: "https://idp.example.com/realms/ml",
  REBOUND_OIDC_CLIENT_ID: "rebound",
  REBOUND_OIDC_CLIENT_SECRET: "secret",
  REBOUND_OIDC_SCOPES: "openid  profile email groups",
  REBOUND_OIDC_GROUPS_CLAIM: "groups",
  REBOUND_OIDC_NAME: "Okta",
  REBOUND_PUBLIC_URL: "https://rebound.example.com",
};

describe("parseOidcSettings", () => {
  it("is off without an issuer, and builds the redirect URI from the public URL", () => {
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_ISSUER: undefined })).toBeNull();
    expect(parseOidcSettings(base)).toMatchObject({
      redirectUri: "https://rebound.example.com/api/auth/oidc/callback",
      scopes: "openid profile email groups",
      name: "Okta",
    });
  });

  it("names the variable that is missing or wrong", () => {
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_CLIENT_ID: undefined })).toEqual({
      error: "REBOUND_OIDC_CLIENT_ID: required when REBOUND_OIDC_ISSUER is set",
    });
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_CLIENT_SECRET: undefined })).toEqual({
      error: "REBOUND_OIDC_CLIENT_SECRET: required when REBOUND_OIDC_ISSUER is set",
    });
    expect(parseOidcSettings({ ...base, REBOUND_PUBLIC_URL: undefined })).toEqual({
      error: "REBOUND_PUBLIC_URL: required when REBOUND_OIDC_ISSUER is set",
    });
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_SCOPES: "profile email" })).toEqual({
      error: "REBOUND_OIDC_SCOPES: must include openid",
    });
  });

  it("takes plain HTTP for a provider on this machine only", () => {
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_ISSUER: "http://idp.example.com" })).toEqual({
      error: "REBOUND_OIDC_ISSUER: expected an https:// URL (http:// only for 127.0.0.1 or localhost)",
    });
    expect(parseOidcSettings({ ...base, REBOUND_OIDC_ISSUER: "http://127.0.0.1:9000" })).toMatchObject({
      issuer: new URL("http://127.0.0.1:9000"),
    });
  });
});

describe("the pending sign-in cookie", () => {
  const pending = {
    state: "s".repeat(43),
    nonce: "n".repeat(43),
    verifier: "v".repeat(43),
    next: "/jobs",
    expiresAt: 2_000,
  };

  it("round-trips until it expires, and refuses what it did not write", () => {
    expect(decodePendingSignIn(encodePendingSignIn(pending), 1_999)).toEqual(pending);
    expect(decodePendingSignIn(encodePendingSignIn(pending), 2_000)).toBeNull();
    expect(decodePendingSignIn(encodePendingSignIn({ ...pending, verifier: "short" }), 0)).toBeNull();
    expect(decodePendingSignIn("%%%", 0)).toBeNull();
    expect(decodePendingSignIn(undefined, 0)).toBeNull();
  });

  it("sends the browser only to a path on this console after sign-in", () => {
    expect(safeNextPath("/jobs/ns/a?x=1")).toBe("/jobs/ns/a?x=1");
    for (const next of [
      "https://evil.example",
      "//evil.example/x",
      "/\\evil.example",
      "jobs",
      null,
      undefined,
    ]) {
      expect(safeNextPath(next)).toBe("/jobs");
    }
  });
});
