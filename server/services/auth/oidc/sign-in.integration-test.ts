import { randomUUID } from "node:crypto";
import { decodeJwt, generateKeyPair, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { userForToken } from "@/server/services/auth/sessions";
import { createSeededTestDatabase } from "@/test/database";
import { signInAtProvider, startTestProvider, type TestProvider } from "@/test/oidc-provider";
import { type OidcSettings, parseOidcSettings } from "./settings";
import { finishOidcSignIn, startOidcSignIn } from "./sign-in";
import { decodePendingSignIn, encodePendingSignIn } from "./state-cookie";

/**
 * Single sign-on against a real OpenID Provider (oidc-provider, started here on 127.0.0.1) and real
 * Postgres: the code flow with PKCE driven as a browser would (the provider's own login form), the session
 * the console then trusts (userForToken, what every request's context uses), the group mappings applied at
 * every sign-in, and each way a callback must be refused without a session being made.
 */
const PUBLIC_URL = "http://127.0.0.1:3999";
const REDIRECT_URI = `${PUBLIC_URL}/api/auth/oidc/callback`;
const log = createLogger({ test: "oidc-sign-in" });

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let provider: TestProvider;
let settings: OidcSettings;
let teams: Map<string, string>;

function contextOf(user: Context["user"], sessionToken?: string): Context {
  return {
    db,
    user,
    sessionToken,
    share: null,
    log,
    setCookie: () => {},
    cluster: async () => {
      throw new Error("no cluster in this test");
    },
    clientAddress: "127.0.0.1",
    secure: false,
  };
}

/** One sign-in as a browser makes it: start, the provider's login as `login`, the callback. */
async function signIn(
  login: string,
  change?: (search: URLSearchParams, cookie: string) => [URLSearchParams, string],
) {
  const started = await startOidcSignIn(settings, { next: "/governance" });
  let search = await signInAtProvider(started.url, { login, redirectUri: REDIRECT_URI });
  let cookie = started.cookieValue;
  if (change) [search, cookie] = change(search, cookie);
  return finishOidcSignIn(db, settings, { search, cookieValue: cookie, log });
}

async function signedIn(login: string) {
  const result = await signIn(login);
  if (!result.ok) throw new Error(result.reason);
  const user = await userForToken(db, result.token);
  if (!user) throw new Error("no user for the new session");
  return { ...result, user };
}

const rolesOf = (user: { memberships: Array<{ teamName: string; role: string }> }) =>
  Object.fromEntries(user.memberships.map((membership) => [membership.teamName, membership.role]));

const sessions = () => db.session.count();

async function adminCaller() {
  const admin = await db.user.findUniqueOrThrow({
    where: { email: "admin@rebound.local" },
    select: { id: true },
  });
  const memberships = await db.membership.findMany({
    where: { userId: admin.id },
    select: { teamId: true, role: true, team: { select: { name: true } } },
  });
  return createCaller(
    contextOf({
      id: admin.id,
      email: "admin@rebound.local",
      name: "Cluster Admin",
      memberships: memberships.map((m) => ({ teamId: m.teamId, teamName: m.team.name, role: m.role })),
    }),
  );
}

beforeAll(async () => {
  database = await createSeededTestDatabase("it_oidc");
  db = createDb(database.url);
  provider = await startTestProvider({ redirectUri: REDIRECT_URI });
  const parsed = parseOidcSettings({
    REBOUND_OIDC_ISSUER: provider.issuer,
    REBOUND_OIDC_CLIENT_ID: provider.clientId,
    REBOUND_OIDC_CLIENT_SECRET: provider.clientSecret,
    REBOUND_OIDC_SCOPES: "openid profile email groups",
    REBOUND_OIDC_GROUPS_CLAIM: "groups",
    REBOUND_OIDC_NAME: "Test IdP",
    REBOUND_PUBLIC_URL: PUBLIC_URL,
  });
  if (parsed === null || "error" in parsed) throw new Error("bad settings");
  settings = parsed;
  const rows = await db.team.findMany({ select: { id: true, name: true } });
  teams = new Map(rows.map((team) => [team.name, team.id]));
  const admin = await adminCaller();
  const team = (name: string) => teams.get(name) ?? "";
  await admin.sso.createMapping({
    kind: "team",
    group: "ml-vision",
    teamId: team("vision"),
    role: "engineer",
  });
  await admin.sso.createMapping({
    kind: "team",
    group: "vision-leads",
    teamId: team("vision"),
    role: "team_admin",
  });
  await admin.sso.createMapping({ kind: "team", group: "llm", teamId: team("llm-research"), role: "viewer" });
  await admin.sso.createMapping({ kind: "cluster_admin", group: "platform-admins" });
  provider.accounts.set("alice", {
    email: "Alice@Example.com",
    email_verified: true,
    name: "Alice",
    groups: ["ml-vision", "llm"],
  });
  provider.accounts.set("bob", {
    email: "bob@example.com",
    email_verified: true,
    name: "Bob",
    groups: ["platform-admins", "vision-leads"],
  });
  provider.accounts.set("carol", {
    email: "carol@example.com",
    email_verified: false,
    name: "Carol",
    groups: ["unmapped"],
  });
});

afterAll(async () => {
  await provider?.close();
  await db?.$disconnect();
  await database?.drop();
});

beforeEach(() => {
  provider.tamperIdToken = null;
});

describe("signing in through the provider", () => {
  it("creates the user, gives the mapped team roles, and a session the console trusts", async () => {
    const alice = await signedIn("alice");
    expect(alice.next).toBe("/governance");
    expect(alice.user).toMatchObject({ email: "alice@example.com", name: "Alice" });
    expect(rolesOf(alice.user)).toEqual({ vision: "engineer", "llm-research": "viewer" });
    const audit = await db.auditLog.findFirst({
      where: { action: "sso.memberships", target: "user/alice@example.com" },
    });
    expect(audit?.details).toMatchObject({ groups: ["ml-vision", "llm"] });
    // The user has no password anyone knows: the password sign-in refuses any.
    const viaPassword = await createCaller(contextOf(null))
      .auth.signIn({ email: "alice@example.com", password: "any password" })
      .catch((e: Error) => e.message);
    expect(viaPassword).toMatch(/wrong email or password/);
  });

  it("makes a cluster admin from a cluster-wide mapping, and the highest role per team", async () => {
    const bob = await signedIn("bob");
    expect(rolesOf(bob.user)).toEqual({ platform: "cluster_admin", vision: "team_admin" });
    expect(await createCaller(contextOf(bob.user)).sso.listMappings()).toHaveLength(4);
  });

  it("signs in a user whose groups map to nothing with no team", async () => {
    const carol = await signedIn("carol");
    expect(carol.user.memberships).toEqual([]);
  });

  it("takes a removed group's access away at the next sign-in, and leaves hand-made memberships", async () => {
    const first = await signedIn("alice");
    const handMade = await db.membership.update({
      where: { userId_teamId: { userId: first.user.id, teamId: teams.get("llm-research") ?? "" } },
      data: { role: "viewer" },
    });
    // A hand-made membership: no OidcMembership row (made as a cluster admin makes one in the team page).
    await db.oidcMembership.delete({ where: { membershipId: handMade.id } });
    provider.accounts.set("alice", {
      email: "alice@example.com",
      email_verified: true,
      name: "Alice B.",
      groups: [],
    });
    const second = await signedIn("alice");
    expect(rolesOf(second.user)).toEqual({ "llm-research": "viewer" });
    expect(second.user.name).toBe("Alice B.");
    // The earlier session reads memberships per request: it lost the access too.
    expect(rolesOf((await userForToken(db, first.token)) ?? { memberships: [] })).toEqual({
      "llm-research": "viewer",
    });
    provider.accounts.set("alice", {
      email: "alice@example.com",
      email_verified: true,
      name: "Alice",
      groups: ["vision-leads"],
    });
    expect(rolesOf((await signedIn("alice")).user)).toEqual({
      vision: "team_admin",
      "llm-research": "viewer",
    });
  });

  it("links an existing local user only when the provider says the email is verified", async () => {
    provider.accounts.set("eve", {
      email: "admin@rebound.local",
      email_verified: false,
      name: "Eve",
      groups: [],
    });
    const before = await sessions();
    const refused = await signIn("eve");
    expect(refused).toEqual({
      ok: false,
      reason:
        "a user with the email admin@rebound.local exists, and the provider does not say the email is verified",
    });
    expect(await sessions()).toBe(before);
    provider.accounts.set("vision-sso", {
      email: "vision@rebound.local",
      email_verified: true,
      name: "Vision",
      groups: [],
    });
    const linked = await signedIn("vision-sso");
    expect(rolesOf(linked.user)).toEqual({ vision: "engineer" });
    // Another account of the provider with the same email cannot take the linked user over.
    provider.accounts.set("mallory", {
      email: "vision@rebound.local",
      email_verified: true,
      name: "M",
      groups: [],
    });
    expect(await signIn("mallory")).toEqual({
      ok: false,
      reason: "the user vision@rebound.local signs in with another single sign-on account",
    });
  });

  it("signs out: the session is gone", async () => {
    const alice = await signedIn("alice");
    await createCaller(contextOf(alice.user, alice.token)).auth.signOut();
    expect(await userForToken(db, alice.token)).toBeNull();
  });
});

describe("refused callbacks make no session", () => {
  async function refusedWith(run: () => Promise<{ ok: boolean; reason?: string }>) {
    const before = await sessions();
    const result = await run();
    expect(result.ok).toBe(false);
    expect(await sessions()).toBe(before);
    return result.reason ?? "";
  }

  it("an ID token signed by another key", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    provider.tamperIdToken = async (idToken) =>
      new SignJWT(decodeJwt(idToken))
        .setProtectedHeader({ alg: "RS256", kid: provider.signingKey.kid ?? "" })
        .sign(privateKey);
    expect(await refusedWith(() => signIn("alice"))).toMatch(/signature/i);
  });

  it("an expired ID token, signed by the provider's own key", async () => {
    const key = await importJWK(provider.signingKey, "RS256");
    const now = Math.floor(Date.now() / 1000);
    provider.tamperIdToken = async (idToken) =>
      new SignJWT({ ...decodeJwt(idToken), iat: now - 3600, exp: now - 600 })
        .setProtectedHeader({ alg: "RS256", kid: provider.signingKey.kid ?? "" })
        .sign(key);
    expect(await refusedWith(() => signIn("alice"))).toMatch(/exp/);
  });

  it("an ID token for another audience, or with another nonce", async () => {
    const key = await importJWK(provider.signingKey, "RS256");
    const resign = (claims: Record<string, unknown>) => async (idToken: string) =>
      new SignJWT({ ...decodeJwt(idToken), ...claims })
        .setProtectedHeader({ alg: "RS256", kid: provider.signingKey.kid ?? "" })
        .sign(key);
    provider.tamperIdToken = resign({ aud: "another-client" });
    expect(await refusedWith(() => signIn("alice"))).toMatch(/aud/);
    provider.tamperIdToken = resign({ nonce: "another-nonce" });
    expect(await refusedWith(() => signIn("alice"))).toMatch(/nonce/);
  });

  it("a wrong state", async () => {
    const reason = await refusedWith(() =>
      signIn("alice", (search, cookie) => {
        search.set("state", "a-state-this-browser-never-sent");
        return [search, cookie];
      }),
    );
    expect(reason).toMatch(/state/);
  });

  it("another browser's code (the attacker's own cookie and state): the PKCE verifier does not match", async () => {
    const victim = await startOidcSignIn(settings, { next: null });
    const victimSearch = await signInAtProvider(victim.url, { login: "bob", redirectUri: REDIRECT_URI });
    const attacker = await startOidcSignIn(settings, { next: null });
    const attackerState = decodePendingSignIn(attacker.cookieValue)?.state ?? "";
    victimSearch.set("state", attackerState);
    const reason = await refusedWith(() =>
      finishOidcSignIn(db, settings, { search: victimSearch, cookieValue: attacker.cookieValue, log }),
    );
    expect(reason).toMatch(/invalid_grant|PKCE|code_verifier/i);
  });

  it("no cookie, or one past its time", async () => {
    const started = await startOidcSignIn(settings, { next: null });
    const search = await signInAtProvider(started.url, { login: "alice", redirectUri: REDIRECT_URI });
    const pending = decodePendingSignIn(started.cookieValue);
    if (!pending) throw new Error("no pending sign-in");
    const stale = encodePendingSignIn({ ...pending, expiresAt: Date.now() - 1 });
    for (const cookieValue of [undefined, stale, "not base64 json", randomUUID()]) {
      expect(await refusedWith(() => finishOidcSignIn(db, settings, { search, cookieValue, log }))).toMatch(
        /expired or began in another browser/,
      );
    }
  });

  it("an error from the provider", async () => {
    const started = await startOidcSignIn(settings, { next: null });
    const search = new URLSearchParams({
      error: "access_denied",
      state: decodePendingSignIn(started.cookieValue)?.state ?? "",
    });
    expect(
      await refusedWith(() =>
        finishOidcSignIn(db, settings, { search, cookieValue: started.cookieValue, log }),
      ),
    ).toBe("the identity provider answered access_denied");
  });
});

describe("group mappings", () => {
  it("are for cluster admins only, audited, and bad input names its field", async () => {
    const lead = await db.user.findUniqueOrThrow({
      where: { email: "lead@rebound.local" },
      select: { id: true },
    });
    const leadCaller = createCaller(
      contextOf({
        id: lead.id,
        email: "lead@rebound.local",
        name: "Lead",
        memberships: [
          { teamId: teams.get("llm-research") ?? "", teamName: "llm-research", role: "team_admin" },
        ],
      }),
    );
    const count = await db.oidcGroupMapping.count();
    await expect(leadCaller.sso.listMappings()).rejects.toThrow(/only a cluster admin/);
    await expect(leadCaller.sso.createMapping({ kind: "cluster_admin", group: "mine" })).rejects.toThrow(
      /only a cluster admin/,
    );
    await expect(createCaller(contextOf(null)).sso.listMappings()).rejects.toThrow(/sign in/);
    const admin = await adminCaller();
    await expect(
      admin.sso.createMapping({
        kind: "team",
        group: " ",
        teamId: teams.get("vision") ?? "",
        role: "engineer",
      }),
    ).rejects.toThrow(/group/);
    await expect(
      admin.sso.createMapping({ kind: "cluster_admin", group: "platform-admins" }),
    ).rejects.toThrow(/already has a mapping cluster-wide/);
    await expect(
      admin.sso.createMapping({ kind: "team", group: "x", teamId: randomUUID(), role: "viewer" }),
    ).rejects.toThrow(/teamId: no team/);
    expect(await db.oidcGroupMapping.count()).toBe(count);
    const created = await admin.sso.createMapping({
      kind: "team",
      group: "x",
      teamId: teams.get("vision") ?? "",
      role: "viewer",
    });
    await admin.sso.deleteMapping({ id: created.id });
    const audit = await db.auditLog.findMany({
      where: { target: "groupMapping/x" },
      orderBy: { createdAt: "asc" },
    });
    expect(audit.map((row) => row.action)).toEqual(["groupMapping.create", "groupMapping.delete"]);
  });
});
