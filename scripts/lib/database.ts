import type { EmbeddedDatabase } from "@/server/db/embedded";
import type { SeedChoice } from "@/server/db/seed";

/**
 * What an empty database gets at start, from the environment (docs/configuration.md and docs/security.md): the
 * demo (teams + demo users) or the settings only, then the first admin from the installer's password or a
 * setup link printed once. `consoleUrl` prefixes the printed link when the launcher knows it.
 */
export type Bootstrap = {
  seed: SeedChoice;
  nodeEnv: string;
  cluster: "local" | "kubernetes";
  admin: { email: string; password: string } | null;
  consoleUrl?: string | undefined;
};

type Log = (line: string) => void;

/** The launcher's Bootstrap from its validated environment (start.ts, db-setup.ts; tests pass theirs). */
export function bootstrapFromEnv(
  env: { REBOUND_SEED: SeedChoice; NODE_ENV: string; REBOUND_CLUSTER: "local" | "kubernetes"; PORT?: number },
  admin: Bootstrap["admin"],
): Bootstrap {
  return {
    seed: env.REBOUND_SEED,
    nodeEnv: env.NODE_ENV,
    cluster: env.REBOUND_CLUSTER,
    admin,
    consoleUrl: env.PORT === undefined ? undefined : `http://localhost:${env.PORT}`,
  };
}

/**
 * The database for this run: DATABASE_URL when set, else an embedded PostgreSQL under the data dir.
 * Migrates, then (unless `seed` is false) seeds and bootstraps the first admin. Imported after
 * `prisma generate` has run.
 */
export async function prepareDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  seed: Bootstrap | false;
  log: Log;
}): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const { startEmbeddedPostgres } = await import("@/server/db/embedded");
  const { migrate } = await import("@/server/db/migrate");
  const embedded = opts.databaseUrl
    ? null
    : await startEmbeddedPostgres({ dataDir: opts.dataDir, log: opts.log });
  const url = opts.databaseUrl ?? embedded?.url;
  if (!url) throw new Error("no database URL");
  try {
    const result = await migrate(url);
    opts.log(
      result.applied.length > 0
        ? `applied migrations: ${result.applied.join(", ")}`
        : `database schema up to date (${result.alreadyApplied} migrations)`,
    );
    if (opts.seed) await bootstrapDatabase({ url, bootstrap: opts.seed, log: opts.log });
    return { url, embedded };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

/** Seeds per REBOUND_SEED and creates (or offers a link for) the first admin. */
export async function bootstrapDatabase(opts: {
  url: string;
  bootstrap: Bootstrap;
  log: Log;
}): Promise<void> {
  const { createDb } = await import("@/server/db/client");
  const { resolveSeedMode } = await import("@/server/db/seed");
  const { bootstrapFirstAdmin } = await import("@/server/services/setup/bootstrap");
  const { reportFirstAdmin, seedDemo, seedProduction } = await import("./database-report");
  const { bootstrap, log } = opts;
  const mode = resolveSeedMode({
    choice: bootstrap.seed,
    nodeEnv: bootstrap.nodeEnv,
    cluster: bootstrap.cluster,
  });
  const db = createDb(opts.url);
  try {
    if (mode === "demo") await seedDemo(db, { production: bootstrap.nodeEnv === "production", log });
    else await seedProduction(db, log);
    reportFirstAdmin(await bootstrapFirstAdmin(db, bootstrap.admin), {
      consoleUrl: bootstrap.consoleUrl,
      log,
    });
  } finally {
    await db.$disconnect();
  }
}
