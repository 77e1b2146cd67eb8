import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDb } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";

/** A fresh, empty database on the test server; dropped by the returned cleanup. */
export async function createTestDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject("postgresAdminUrl");
  const name = `${prefix}_${randomBytes(4).toString("hex")}`.toLowerCase();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A fresh database with the schema migrated and the demo seeded (teams, users), as most tests want. */
export async function createSeededTestDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = await createTestDatabase(prefix);
  await migrate(database.url);
  const db = createDb(database.url);
  try {
    await seedIfEmpty(db);
  } finally {
    await db.$disconnect();
  }
  return database;
}
