import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { createSeededTestDatabase } from "@/test/database";
import { signInAtProvider, startTestProvider, type TestProvider } from "@/test/oidc-provider";

/**
 * Single sign-on through the console's real route handlers (app/api/auth/oidc/{start,callback}, and tRPC's
 * for the session and the password sign-in), served as Next serves them, with a real provider and
 * REBOUND_LOCAL_PASSWORDS=off: a correct password signs no one in; the callback signs in only the browser
 * that started the sign-in, once; every refusal leaves no session.
 */
type RouteHandler = (request: Request) => Promise<Response>;

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let server: http.Server;
let origin: string;
let provider: TestProvider;
const routes = new Map<string, RouteHandler>();

function toRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  const pairs = Object.entries(req.headers).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((one) => [key, one] as const),
  );
  for (const [key, one] of pairs) if (one !== undefined) headers.append(key, one);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`${origin}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? (req as unknown as ReadableStream<Uint8Array>) : null,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
}

function dispatch(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const handler = routes.get(path.startsWith("/api/trpc/") ? "/api/trpc" : path);
  if (!handler) {
    res.writeHead(404).end();
    return;
  }
  void handler(toRequest(req)).then(async (response) => {
    const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
    headers["set-cookie"] = response.headers.getSetCookie();
    res.writeHead(response.status, headers);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

const cookieOf = (response: Response, name: string) =>
  response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
const cookieValue = (cookie: string | undefined) =>
  cookie?.split(";")[0]?.split("=").slice(1).join("=") ?? "";

async function trpcMe(session: string) {
  const response = await fetch(`${origin}/api/trpc/auth.me`, {
    headers: { cookie: `rebound_session=${session}` },
  });
  return ((await response.json()) as { result: { data: { json: { email: string } | null } } }).result.data
    .json;
}

beforeAll(async () => {
  database = await createSeededTestDatabase("adv_sso_routes");
  db = createDb(database.url);
  server = http.createServer(dispatch);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = await startTestProvider({ redirectUri: `${origin}/api/auth/oidc/callback` });
  provider.accounts.set("olga", {
    email: "olga@example.com",
    email_verified: true,
    name: "Olga",
    groups: [],
  });
  for (const [name, value] of Object.entries({
    DATABASE_URL: database.url,
    REBOUND_LOCAL_PASSWORDS: "off",
    REBOUND_OIDC_ISSUER: provider.issuer,
    REBOUND_OIDC_CLIENT_ID: provider.clientId,
    REBOUND_OIDC_CLIENT_SECRET: provider.clientSecret,
    REBOUND_PUBLIC_URL: origin,
  }))
    vi.stubEnv(name, value);
  const trpc = (await import("@/app/api/trpc/[trpc]/route")) as { GET: RouteHandler; POST: RouteHandler };
  routes.set("/api/trpc", (request) => (request.method === "GET" ? trpc.GET(request) : trpc.POST(request)));
  routes.set("/api/auth/oidc/start", (await import("@/app/api/auth/oidc/start/route")).GET);
  routes.set("/api/auth/oidc/callback", (await import("@/app/api/auth/oidc/callback/route")).GET);
}, 120_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await provider?.close();
  await new Promise((resolve) => server?.close(resolve));
  await db?.$disconnect();
  await database?.drop();
});

describe("single sign-on through the console's routes", () => {
  it("REBOUND_LOCAL_PASSWORDS=off: the right password signs no one in", async () => {
    const sessions = await db.session.count();
    const response = await fetch(`${origin}/api/trpc/auth.signIn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { email: "admin@rebound.local", password: "rebound-demo" } }),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/passwords are turned off here/);
    expect(cookieOf(response, "rebound_session")).toBeUndefined();
    expect(await db.session.count()).toBe(sessions);
  });

  it("signs in the browser that started it, once; the pending cookie is HttpOnly, Lax and cleared", async () => {
    const start = await fetch(`${origin}/api/auth/oidc/start?next=/governance`, { redirect: "manual" });
    expect(start.status).toBe(303);
    const pending = cookieOf(start, "rebound_oidc") ?? "";
    expect(pending).toMatch(/; Path=\/api\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const search = await signInAtProvider(new URL(start.headers.get("location") ?? ""), {
      login: "olga",
      redirectUri: `${origin}/api/auth/oidc/callback`,
    });
    const callbackUrl = `${origin}/api/auth/oidc/callback?${search}`;

    // Another browser (no pending sign-in of its own) with this very callback URL: refused, no session.
    const stolen = await fetch(callbackUrl, { redirect: "manual" });
    expect(stolen.headers.get("location")).toBe(`${origin}/sign-in`);
    expect(cookieOf(stolen, "rebound_session")).toBeUndefined();
    expect(decodeURIComponent(cookieValue(cookieOf(stolen, "rebound_sso_error")))).toMatch(
      /began in another browser/,
    );

    const callback = await fetch(callbackUrl, {
      redirect: "manual",
      headers: { cookie: `rebound_oidc=${cookieValue(pending)}` },
    });
    expect(callback.headers.get("location")).toBe(`${origin}/governance`);
    expect(cookieOf(callback, "rebound_oidc")).toMatch(/Max-Age=0/);
    const session = cookieValue(cookieOf(callback, "rebound_session"));
    expect(await trpcMe(session)).toMatchObject({ email: "olga@example.com" });

    // The same callback again (a replay, the old cookie kept): the code is spent, no second session.
    const sessions = await db.session.count();
    const replay = await fetch(callbackUrl, {
      redirect: "manual",
      headers: { cookie: `rebound_oidc=${cookieValue(pending)}` },
    });
    expect(replay.headers.get("location")).toBe(`${origin}/sign-in`);
    expect(cookieOf(replay, "rebound_session")).toBeUndefined();
    expect(await db.session.count()).toBe(sessions);
  });

  it("sends the browser back only to a path on this console", async () => {
    const start = await fetch(`${origin}/api/auth/oidc/start?next=//evil.example/x`, { redirect: "manual" });
    const search = await signInAtProvider(new URL(start.headers.get("location") ?? ""), {
      login: "olga",
      redirectUri: `${origin}/api/auth/oidc/callback`,
    });
    const callback = await fetch(`${origin}/api/auth/oidc/callback?${search}`, {
      redirect: "manual",
      headers: { cookie: `rebound_oidc=${cookieValue(cookieOf(start, "rebound_oidc"))}` },
    });
    expect(callback.headers.get("location")).toBe(`${origin}/jobs`);
  });
});
