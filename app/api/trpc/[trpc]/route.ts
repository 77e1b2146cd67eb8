import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { env } from "@/env";
import { createRequestContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { BodyTooLargeError, limitRequestBody } from "@/server/http/bounded-body";
import { getDb } from "@/server/services/wiring";

export const dynamic = "force-dynamic";

/** tRPC reads the body only through the bound: past REBOUND_MAX_BODY_BYTES it answers 413 PAYLOAD_TOO_LARGE. */
const tooLarge = (limit: number) =>
  new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: new BodyTooLargeError(limit).message });

function handler(request: Request) {
  const req = limitRequestBody(request, { limit: env.REBOUND_MAX_BODY_BYTES, tooLarge });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createRequestContext({
        db: getDb(),
        headers: req.headers,
        resHeaders,
        url: req.url,
        trustedProxies: env.REBOUND_TRUSTED_PROXIES,
      }),
  });
}

export { handler as GET, handler as POST };
