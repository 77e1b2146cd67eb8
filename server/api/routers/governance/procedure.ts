import { protectedProcedure } from "@/server/api/trpc";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { createLogger } from "@/server/log";
import { ensureCapacitySampler } from "@/server/services/governance/sampler";

const samplerLog = createLogger({ service: "rebound-console", component: "capacity-sampler" });

/**
 * Every governance procedure: signed in, and the console's capacity sampler running (it records capacity
 * over time; the console has no other place that runs at start).
 */
export const governanceProcedure = protectedProcedure.use(({ ctx, next }) => {
  ensureCapacitySampler({ db: ctx.db, cluster: ctx.cluster, log: samplerLog });
  return next();
});

/** The team's id, or NOT_FOUND. */
export async function teamIdByName(db: Db, name: string): Promise<string> {
  const team = await db.team.findUnique({ where: { name }, select: { id: true } });
  if (!team) throw new AppError("NOT_FOUND", `team: no team named ${name}`);
  return team.id;
}

export function forbidden(message: string): never {
  throw new AppError("FORBIDDEN", message);
}
