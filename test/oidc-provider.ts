import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

/**
 * A real OpenID Provider for tests: panva's oidc-provider (OpenID Certified), on 127.0.0.1, with one
 * confidential client, accounts the test edits (their groups change between sign-ins), its development login
 * form (any password), and the signing key in the test's hands so a test can mint a token the provider
 * would (expired) beside one it would not (another key). `tamperIdToken`, when set, rewrites the ID token in
 * the token endpoint's answer: a provider that cannot be trusted, or a token swapped on the way.
 */
export type TestAccount = { email: string; email_verified: boolean; name: string; groups: string[] };

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /** The provider's private signing key (RS256). */
  signingKey: JWK;
  tamperIdToken: ((idToken: string) => Promise<string>) | null;
  close: () => Promise<void>;
};

export async function startTestProvider(opts: { redirectUri: string; port?: number }): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "test-signing-key", alg: "RS256", use: "sig" };
  const accounts = new Map<string, TestAccount>();
  const clientId = "rebound-console";
  const clientSecret = "a-client-secret-of-thirty-two-characters";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ["a-cookie-signing-key-for-tests"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
  });
  const handle: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signingKey,
    tamperIdToken: null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (ctx.path === "/token" && handle.tamperIdToken && typeof body?.id_token === "string") {
      ctx.body = { ...body, id_token: await handle.tamperIdToken(body.id_token) };
    }
  });
  server.on("request", provider.callback());
  return handle;
}

/** Cookies by name, as a browser keeps them for one site. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair = ""] = header.split(";");
      const at = pair.indexOf("=");
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** A form's action and hidden inputs, from the provider's development login and consent pages. */
function formOf(html: string, base: URL): { action: URL; fields: URLSearchParams } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const input of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields.set(input[1] ?? "", input[2] ?? "");
  }
  return { action: new URL(action.replaceAll("&amp;", "&"), base), fields };
}

/**
 * What a browser does at the provider: follows its redirects, signs in on its login form as `login`, confirms
 * its consent form, until the provider redirects to the client. Returns that redirect's query.
 */
export async function signInAtProvider(authorizationUrl: URL, opts: { login: string; redirectUri: string }) {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.take(response);
    const location = response.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(opts.redirectUri)) return next.searchParams;
      url = next;
      init = {};
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
    const form = formOf(html, url);
    if (form.fields.get("prompt") === "login") {
      form.fields.set("login", opts.login);
      form.fields.set("password", "any password");
    }
    url = form.action;
    init = {
      method: "POST",
      body: form.fields.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
  }
  throw new Error("the provider never redirected back to the client");
}
