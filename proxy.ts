import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/env";
import { pageContentSecurityPolicy, pageFrameHeaders } from "@/server/http/security-headers";
import { shareTokenHandoff } from "@/server/services/share-tokens/handoff";

/**
 * A TV's share link (`/tv/<view>?token=…`) is answered here: the token goes into its HttpOnly cookie and the
 * browser is sent to the same page without it (server/services/share-tokens/handoff.ts).
 */
function handOffShareToken(request: NextRequest): NextResponse | null {
  const handoff = shareTokenHandoff(request.nextUrl, request.headers);
  if (!handoff) return null;
  // Next's proxy needs an absolute Location: the same origin the request came to.
  const response = NextResponse.redirect(new URL(handoff.location, request.nextUrl), 303);
  response.headers.set("cache-control", "no-store");
  if (handoff.setCookie) response.headers.append("set-cookie", handoff.setCookie);
  return response;
}

/**
 * Every page gets a CSP with a fresh script nonce (Next reads it from the request's CSP header and puts it
 * on its own scripts; app/layout.tsx renders every page per request for this). Route handlers are not
 * matched: they get their headers from next.config.ts, and their bodies are not cloned for a proxy.
 */
export function proxy(request: NextRequest) {
  const handoff = handOffShareToken(request);
  if (handoff) return handoff;
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = pageContentSecurityPolicy({
    nonce,
    url: request.nextUrl,
    dev: env.NODE_ENV === "development",
  });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  for (const header of pageFrameHeaders(request.nextUrl)) response.headers.set(header.key, header.value);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image|favicon.ico).*)"],
};
