import { getDb } from "@/server/services/wiring";

export const dynamic = "force-dynamic";

/** 200 when the database answers within 2 s, else 503 with the reason. */
export async function GET() {
  const started = Date.now();
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("database did not answer within 2 s")), 2000),
    );
    await Promise.race([getDb().$queryRaw`SELECT 1`, timeout]);
    return Response.json({ status: "ok", database: "ok", latencyMs: Date.now() - started });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return Response.json({ status: "unavailable", database: reason }, { status: 503 });
  }
}
