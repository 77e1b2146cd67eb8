import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/trpc/[trpc]/route";
import { createRequestContext } from "@/server/api/context";
import { appRouter, createCaller } from "@/server/api/root";
import { protectedProcedure } from "@/server/api/trpc";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { signIn } from "@/server/services/auth/sessions";
import { hashShareSecret, SHARE_COOKIE, SHARE_HEADER } from "@/server/services/share-tokens/grants";
import { createSeededTestDatabase } from "@/test/database";

/**
 * A TV share token through the console's real tRPC route handler (app/api/trpc/[trpc]/route.ts: body bound,
 * request context from the cookie, the real router) with no one signed in. The router is enumerated, so a
 * procedure added later is covered without a line here: every mutation is refused (FORBIDDEN, read-only),
 * every protectedProcedure query and subscription is UNAUTHORIZED, and nothing in the database changes.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let admin: ReturnType<typeof createCaller>;
let live: { id: string; secret: string };

const READ_ONLY =
  "a TV share token is read-only: sign in to change anything (open /tv/forget to drop the token)";
const globalForDb = globalThis as unknown as { reboundDb?: Db };

type Kind = "query" | "mutation" | "subscription";
type ProcedureDef = { _def: { type: Kind; middlewares: unknown[] } };
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, ProcedureDef>).map(
  ([path, procedure]) => ({ path, type: procedure._def.type, middlewares: procedure._def.middlewares }),
);
/** protectedProcedure's own check (its last middleware): a procedure built on it carries the same function. */
const signedInCheck = (
  protectedProcedure as unknown as { _def: { middlewares: unknown[] } }
)._def.middlewares.at(-1);
const isProtected = (middlewares: unknown[]) => middlewares.includes(signedInCheck);

/** Inputs a signed-in admin's call would be accepted with, where a refusal should not hinge on bad input. */
const VALID_INPUTS: Record<string, () => unknown> = {
  "teams.create": () => ({ name: "tv-made", displayName: "TV made", namespace: "tv-made" }),
  "shareTokens.create": () => ({ label: "minted by a TV", views: ["jobs"], allTeams: true, teamIds: [] }),
  "shareTokens.revoke": () => ({ id: live.id }),
  "shareTokens.pair": () => ({ code: "ABCD-EFGH" }),
};

type Answer = { status: number; code: string | null; message: string | null; body: string };

/** One procedure call over HTTP, the browser's way (superjson envelope), with the given credential. */
async function call(opts: {
  path: string;
  type: Kind;
  headers: Record<string, string>;
  input?: unknown;
}): Promise<Answer> {
  const url = `http://console.test/api/trpc/${opts.path}`;
  const query =
    opts.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: opts.input }))}`;
  const abort = new AbortController();
  const request =
    opts.type === "mutation"
      ? new Request(url, {
          method: "POST",
          headers: { ...opts.headers, "content-type": "application/json" },
          body: JSON.stringify({ json: opts.input ?? {} }),
        })
      : new Request(`${url}${query}`, {
          headers:
            opts.type === "subscription" ? { ...opts.headers, accept: "text/event-stream" } : opts.headers,
          signal: abort.signal,
        });
  const response = await (opts.type === "mutation" ? POST(request) : GET(request));
  const body = await readSome(response, abort);
  const error = /"code":"([A-Z_]+)"/.exec(body);
  const message = /"message":"((?:[^"\\]|\\.)*)"/.exec(body);
  return { status: response.status, code: error?.[1] ?? null, message: message?.[1] ?? null, body };
}

/** The whole body, or for a stream its first events (a stream may stay open). */
async function readSome(response: Response, abort: AbortController): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && !/"code":"[A-Z_]+"/.test(text)) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(1, deadline - Date.now()))),
    ]);
    if (chunk === null || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  abort.abort();
  await reader.cancel().catch(() => undefined);
  return text;
}

const cookie = (secret: string) => ({ cookie: `${SHARE_COOKIE}=${secret}` });

/** Everything a request could change (ShareToken's lastUsedAt aside, which a token's use records). */
async function state() {
  const counts = await Promise.all([
    db.team.count(),
    db.user.count(),
    db.session.count(),
    db.membership.count(),
    db.computeQuota.count(),
    db.computeQuotaResource.count(),
    db.priorityClass.count(),
    db.schedulerConfig.count(),
    db.policy.count(),
    db.policyVersion.count(),
    db.localJob.count(),
    db.restartEvent.count(),
    db.jobEvent.count(),
    db.auditLog.count(),
    db.setupToken.count(),
  ]);
  const tokens = await db.shareToken.findMany({ orderBy: { id: "asc" }, omit: { lastUsedAt: true } });
  return JSON.stringify({ counts, tokens });
}

async function adminCaller() {
  const session = await signIn(db, { email: "admin@rebound.local", password: "rebound-demo" });
  if (!session.ok) throw new Error(session.reason);
  return createCaller({
    db,
    user: session.user,
    sessionToken: session.token,
    share: null,
    log: createLogger({ test: "share-guard" }),
    setCookie: () => undefined,
    cluster: async () => {
      throw new Error("no cluster in this test");
    },
    clientAddress: "127.0.0.1",
    secure: false,
  });
}

async function createLinkToken(label: string) {
  const created = await admin.shareTokens.create({
    label,
    views: ["cluster", "jobs"],
    allTeams: true,
    teamIds: [],
  });
  if (created.kind !== "link") throw new Error("expected a link token");
  return { id: created.token.id, secret: created.secret };
}

beforeAll(async () => {
  database = await createSeededTestDatabase("it_share_guard");
  db = createDb(database.url);
  // The route handler's getDb() is the console's singleton: this test's database.
  globalForDb.reboundDb = db;
  admin = await adminCaller();
  live = await createLinkToken("Lobby TV");
});

afterAll(async () => {
  globalForDb.reboundDb = undefined;
  await db.$disconnect();
  await database.drop();
});

describe("a share token, no one signed in, through the real HTTP handler", () => {
  it("finds the router's procedures to check (all three kinds)", () => {
    const kinds = new Set(procedures.map((procedure) => procedure.type));
    expect(kinds).toEqual(new Set(["query", "mutation", "subscription"]));
    expect(procedures.filter((p) => p.type === "mutation").length).toBeGreaterThan(10);
    expect(procedures.find((p) => p.path === "governance.quota.update")?.middlewares).toSatisfy(isProtected);
    expect(procedures.find((p) => p.path === "auth.me")?.middlewares).not.toSatisfy(isProtected);
  });

  it("is refused by every mutation as read-only, and nothing changes", async () => {
    const before = await state();
    const answers: Record<string, string> = {};
    for (const { path } of procedures.filter((procedure) => procedure.type === "mutation")) {
      const answer = await call({
        path,
        type: "mutation",
        headers: cookie(live.secret),
        input: VALID_INPUTS[path]?.(),
      });
      answers[path] = `${answer.status} ${answer.code}: ${answer.message}`;
    }
    const expected = Object.fromEntries(
      Object.keys(answers).map((path) => [path, `403 FORBIDDEN: ${READ_ONLY}`]),
    );
    expect(answers).toEqual(expected);
    expect(await state()).toBe(before);
  });

  it("is UNAUTHORIZED at every protectedProcedure query and subscription, and nothing changes", async () => {
    const before = await state();
    const answers: Record<string, string | null> = {};
    for (const { path, type } of procedures.filter(
      (p) => p.type !== "mutation" && isProtected(p.middlewares),
    )) {
      answers[path] = (await call({ path, type, headers: cookie(live.secret) })).code;
    }
    expect(Object.keys(answers).length).toBeGreaterThan(20);
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((path) => [path, "UNAUTHORIZED"])));
    // The public and viewer ones (sign-in state, TV views) answer as they do; still nothing changes.
    for (const { path, type } of procedures.filter(
      (p) => p.type !== "mutation" && !isProtected(p.middlewares),
    )) {
      await call({ path, type, headers: cookie(live.secret) });
    }
    expect(await state()).toBe(before);
  });

  it("is the same credential in the x-rebound-share-token header", async () => {
    const answer = await call({
      path: "teams.create",
      type: "mutation",
      headers: { [SHARE_HEADER]: live.secret },
      input: VALID_INPUTS["teams.create"]?.(),
    });
    expect(`${answer.status} ${answer.code}: ${answer.message}`).toBe(`403 FORBIDDEN: ${READ_ONLY}`);
  });

  it("records when it was last used (at most every 30 s)", async () => {
    const fresh = await createLinkToken("Hall TV");
    expect((await db.shareToken.findUniqueOrThrow({ where: { id: fresh.id } })).lastUsedAt).toBeNull();
    const before = Date.now();
    await call({ path: "auth.me", type: "query", headers: cookie(fresh.secret) });
    const first = (await db.shareToken.findUniqueOrThrow({ where: { id: fresh.id } })).lastUsedAt;
    expect(first?.getTime()).toBeGreaterThanOrEqual(before - 5);
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await db.shareToken.update({ where: { id: fresh.id }, data: { lastUsedAt: aMinuteAgo } });
    await call({ path: "auth.me", type: "query", headers: cookie(fresh.secret) });
    const second = (await db.shareToken.findUniqueOrThrow({ where: { id: fresh.id } })).lastUsedAt;
    expect(second?.getTime()).toBeGreaterThan(aMinuteAgo.getTime() + 50_000);
  });

  it("once revoked is no token at all: UNAUTHORIZED, not FORBIDDEN", async () => {
    const doomed = await createLinkToken("Old TV");
    const context = (secret: string) =>
      createRequestContext({ db, headers: new Headers(cookie(secret)), resHeaders: new Headers() });
    expect((await context(doomed.secret)).share?.tokenId).toBe(doomed.id);
    await admin.shareTokens.revoke({ id: doomed.id });
    expect((await context(doomed.secret)).share).toBeNull();
    const mutation = await call({
      path: "teams.create",
      type: "mutation",
      headers: cookie(doomed.secret),
      input: VALID_INPUTS["teams.create"]?.(),
    });
    expect(`${mutation.status} ${mutation.code}`).toBe("401 UNAUTHORIZED");
    expect((await call({ path: "jobs.list", type: "query", headers: cookie(doomed.secret) })).code).toBe(
      "UNAUTHORIZED",
    );
    expect((await call({ path: "auth.me", type: "query", headers: cookie(doomed.secret) })).body).toContain(
      '"json":null',
    );
  });

  it("never adds to a signed-in user's rights, nor takes from them", async () => {
    const session = await signIn(db, { email: "viewer@rebound.local", password: "rebound-demo" });
    if (!session.ok) throw new Error(session.reason);
    const headers = new Headers({
      cookie: `rebound_session=${session.token}; ${SHARE_COOKIE}=${live.secret}`,
    });
    const context = await createRequestContext({ db, headers, resHeaders: new Headers() });
    expect(context.user?.email).toBe("viewer@rebound.local");
    expect(context.share).toBeNull();
  });

  it("is stored hashed: the secret is in no column of any token or audit row", async () => {
    const row = await db.shareToken.findUniqueOrThrow({ where: { id: live.id } });
    expect(row.tokenHash).toBe(hashShareSecret(live.secret));
    const dumps = await db.$queryRaw<Array<{ row: string }>>`
      SELECT row_to_json(t)::text AS row FROM "ShareToken" t
      UNION ALL SELECT row_to_json(a)::text FROM "AuditLog" a`;
    expect(dumps.length).toBeGreaterThan(3);
    for (const dump of dumps) expect(dump.row).not.toContain(live.secret);
  });
});
