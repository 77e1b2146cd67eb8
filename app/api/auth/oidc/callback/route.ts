import { isSecureRequest, readCookie } from "@/server/api/context";
import { sessionCookie } from "@/server/api/routers/auth/router";
import { createLogger } from "@/server/log";
import { oidcSettings } from "@/server/services/auth/oidc/from-env";
import { OIDC_CALLBACK_PATH } from "@/server/services/auth/oidc/settings";
import { finishOidcSignIn } from "@/server/services/auth/oidc/sign-in";
import { OIDC_COOKIE, pendingSignInCookie, ssoErrorCookie } from "@/server/services/auth/oidc/state-cookie";
import { getDb } from "@/server/services/wiring";

export const dynamic = "force-dynamic";

const log = createLogger({ service: "rebound-console", component: "sso" });

/**
 * The identity provider's redirect back (REBOUND_PUBLIC_URL + this path): a session on success, else the
 * sign-in page, which shows the reason. The pending sign-in's cookie is cleared either way (one use).
 */
export async function GET(request: Request) {
  const settings = oidcSettings();
  if (!settings) return Response.json({ error: "single sign-on is not configured" }, { status: 404 });
  const result = await finishOidcSignIn(getDb(), settings, {
    search: new URL(request.url).searchParams,
    cookieValue: readCookie(request.headers, OIDC_COOKIE),
    log,
  });
  const secure = isSecureRequest({ url: request.url, headers: request.headers });
  // Relative to the registered redirect URI: the console's public origin, whatever address reached us.
  const base = settings.redirectUri.replace(OIDC_CALLBACK_PATH, "/");
  const location = new URL(result.ok ? result.next : "/sign-in", base);
  const headers = new Headers({ location: location.href, "cache-control": "no-store" });
  headers.append("set-cookie", pendingSignInCookie({ value: "", secure, maxAgeSeconds: 0 }));
  if (result.ok) {
    const maxAgeSeconds = Math.floor((result.expiresAt.getTime() - Date.now()) / 1000);
    headers.append("set-cookie", sessionCookie({ value: result.token, maxAgeSeconds, secure }));
  } else {
    // The reason rides in a cookie, not the URL: a link to the sign-in page cannot put words on it.
    headers.append("set-cookie", ssoErrorCookie({ reason: result.reason, secure }));
  }
  return new Response(null, { status: 303, headers });
}
