import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

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
