import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createRequestContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createRequestContext({ db: getDb(), headers: req.headers, resHeaders, url: req.url }),
  });
}

export { handler as GET, handler as POST };
