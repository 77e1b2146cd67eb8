import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { env } from "@/env";
import { createRequestContext } from "@/server/api/context";
import { AppError, toTrpcCode } from "@/server/errors";
import { rankLogFile, rankLogFileInput } from "@/server/services/jobs/rank-log-file";
import { getDb } from "@/server/services/wiring";

export const dynamic = "force-dynamic";

const refused = (status: number, message: string) =>
  new Response(`${message}\n`, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });

/**
 * A rank's whole log as a text file: `GET /api/jobs/<ns>/<name>/log?rank=3` (or `?pod=…&localRank=…`).
 * Signed-in users only, as jobs.logs (a TV share token reads no logs); another team's job is 404 as there
 * (server/services/jobs/rank-log-file.ts).
 */
export async function GET(request: Request, props: { params: Promise<{ namespace: string; name: string }> }) {
  const ctx = await createRequestContext({
    db: getDb(),
    headers: request.headers,
    resHeaders: new Headers(),
    url: request.url,
    trustedProxies: env.REBOUND_TRUSTED_PROXIES,
  });
  if (!ctx.user) return refused(401, "sign in first");
  try {
    const input = rankLogFileInput(await props.params, new URL(request.url).searchParams);
    const file = await rankLogFile(ctx.db, await ctx.cluster(), ctx.user, input);
    return new Response(file.text, {
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "content-disposition": `attachment; filename="${file.filename}"`,
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const status = getHTTPStatusCodeFromError(new TRPCError({ code: toTrpcCode(error.code) }));
    return refused(status, error.message);
  }
}
