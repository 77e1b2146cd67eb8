import { isSecureRequest } from "@/server/api/context";
import { AppError } from "@/server/errors";
import { oidcSettings } from "@/server/services/auth/oidc/from-env";
import { OIDC_CALLBACK_PATH } from "@/server/services/auth/oidc/settings";
import { startOidcSignIn } from "@/server/services/auth/oidc/sign-in";
import { pendingSignInCookie, ssoErrorCookie } from "@/server/services/auth/oidc/state-cookie";

export const dynamic = "force-dynamic";

/** "Sign in with …": to the identity provider, with this sign-in's state, nonce and PKCE verifier in a cookie. */
export async function GET(request: Request) {
  const settings = oidcSettings();
  if (!settings) return Response.json({ error: "single sign-on is not configured" }, { status: 404 });
  const secure = isSecureRequest({ url: request.url, headers: request.headers });
  const next = new URL(request.url).searchParams.get("next");
  try {
    const { url, cookieValue } = await startOidcSignIn(settings, { next });
    const headers = new Headers({ location: url.href, "cache-control": "no-store" });
    headers.append("set-cookie", pendingSignInCookie({ value: cookieValue, secure }));
    return new Response(null, { status: 303, headers });
  } catch (error) {
    // The provider unreachable: back to the sign-in page, which says so (passwords may still work).
    if (!(error instanceof AppError)) throw error;
    const headers = new Headers({
      location: settings.redirectUri.replace(OIDC_CALLBACK_PATH, "/sign-in"),
    });
    headers.append("set-cookie", ssoErrorCookie({ reason: error.message, secure }));
    return new Response(null, { status: 303, headers });
  }
}
