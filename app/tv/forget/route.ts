import { shareCookie } from "@/server/services/share-tokens/cookie";
import { requestIsHttps } from "@/server/services/share-tokens/handoff";

export const dynamic = "force-dynamic";

/** Drops this browser's TV share token (its cookie) and goes to the sign-in page. */
export function GET(request: Request) {
  const url = new URL(request.url);
  const headers = new Headers({ location: "/sign-in", "cache-control": "no-store" });
  headers.append(
    "set-cookie",
    shareCookie({ value: "", secure: requestIsHttps(url, request.headers), maxAgeSeconds: 0 }),
  );
  return new Response(null, { status: 303, headers });
}
