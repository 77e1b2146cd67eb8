import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records each in Prisma's own
 * `_prisma_migrations` table (same columns, same sha256 checksum, same advisory lock key), so
 * `prisma migrate deploy` agrees with us wherever Prisma's schema engine is available.
 */
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../../prisma/migrations");
const PRISMA_ADVISORY_LOCK_KEY = 72_707_369;

export type LocalMigration = { name: string; sql: string; checksum: string };
export type MigrationResult = { applied: string[]; alreadyApplied: number };

export class MigrationError extends Error {
  override name = "MigrationError";
}

type AppliedRow = { migration_name: string; checksum: string; finished_at: Date | null };

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<LocalMigration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/** Refuses (before changing anything) when history and files disagree; returns the pending ones. */
export function planMigrations(local: LocalMigration[], applied: AppliedRow[]): LocalMigration[] {
  const byName = new Map(local.map((migration) => [migration.name, migration]));
  for (const row of applied) {
    const file = byName.get(row.migration_name);
    if (row.finished_at === null) {
      throw new MigrationError(
        `migration ${row.migration_name} started but did not finish; fix the database by hand, then delete its row from _prisma_migrations`,
      );
    }
    if (!file) {
      throw new MigrationError(
        `the database has migration ${row.migration_name}, which is not in prisma/migrations (is this an older checkout?)`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${row.migration_name} was edited after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${file.checksum.slice(0, 12)}… on disk); add a new migration instead`,
      );
    }
  }
  const done = new Set(applied.map((row) => row.migration_name));
  return local.filter((migration) => !done.has(migration.name));
}

async function applyOne(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`migration ${migration.name} failed and was rolled back: ${detail}`, {
      cause: error,
    });
  }
}

export async function migrate(databaseUrl: string, dir: string = MIGRATIONS_DIR): Promise<MigrationResult> {
  const local = await readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(CREATE_TABLE);
    const { rows } = await client.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at`,
    );
    const pending = planMigrations(local, rows);
    for (const migration of pending) await applyOne(client, migration);
    return { applied: pending.map((migration) => migration.name), alreadyApplied: rows.length };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
