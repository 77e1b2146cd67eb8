import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/env";
import { pageContentSecurityPolicy, pageFrameHeaders } from "@/server/http/security-headers";

/**
 * Every page gets a CSP with a fresh script nonce (Next reads it from the request's CSP header and puts it
 * on its own scripts; app/layout.tsx renders every page per request for this). Route handlers are not
 * matched: they get their headers from next.config.ts, and their bodies are not cloned for a proxy.
 */
export function proxy(request: NextRequest) {
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
