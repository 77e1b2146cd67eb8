import type { EmbeddedDatabase } from "@/server/db/embedded";

/**
 * The database for this run: DATABASE_URL when set, else an embedded PostgreSQL under the data dir.
 * Migrates, then seeds the demo into an empty database. Imported after `prisma generate` has run.
 */
export async function prepareDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  seed: boolean;
  log: (line: string) => void;
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
    if (opts.seed) await seed(url, opts.log);
    return { url, embedded };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

async function seed(url: string, log: (line: string) => void): Promise<void> {
  const { createDb } = await import("@/server/db/client");
  const { seedIfEmpty, DEMO_PASSWORD } = await import("@/server/db/seed");
  const db = createDb(url);
  try {
    if (await seedIfEmpty(db))
      log(`seeded the demo: teams, users (password "${DEMO_PASSWORD}"), priority classes`);
  } finally {
    await db.$disconnect();
  }
}
