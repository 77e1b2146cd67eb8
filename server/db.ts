import { env } from "@/env";
import { createDb, type Db } from "@/server/db/client";
import { AppError } from "@/server/errors";

/** The console's Prisma singleton (t3 pattern: one client across hot reloads). */
const globalForDb = globalThis as unknown as { reboundDb?: Db };

export function getDb(): Db {
  if (globalForDb.reboundDb) return globalForDb.reboundDb;
  if (!env.DATABASE_URL) {
    throw new AppError(
      "UNAVAILABLE",
      "DATABASE_URL is not set: start the console with `npm start` (it runs an embedded PostgreSQL) or set DATABASE_URL",
    );
  }
  globalForDb.reboundDb = createDb(env.DATABASE_URL);
  return globalForDb.reboundDb;
}
