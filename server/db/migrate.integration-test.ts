import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/test/database";
import { MIGRATIONS_DIR, MigrationError, migrate, readMigrations } from "./migrate";

let database: { url: string; drop: () => Promise<void> };
let dir: string;

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const history = () =>
  query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
  );

beforeEach(async () => {
  database = await createTestDatabase("it_migrate");
  dir = await mkdtemp(path.join(tmpdir(), "rebound-migrations-"));
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
});

afterEach(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("migration runner", () => {
  it("applies every migration and records it in _prisma_migrations with Prisma's checksum", async () => {
    const names = (await readMigrations(dir)).map((migration) => migration.name);
    expect(names[0]).toBe("20261121000000_init");
    const result = await migrate(database.url, dir);
    expect(result.applied).toEqual(names);
    const rows = await history();
    expect(rows.map((row) => row.migration_name)).toEqual(names);
    const sql = await readFile(path.join(dir, "20261121000000_init/migration.sql"));
    expect(rows[0]?.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
    expect(rows[0]?.finished_at).toBeInstanceOf(Date);
    const tables = await query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'Team'`,
    );
    expect(tables).toHaveLength(1);
  });

  it("is idempotent: a second run applies nothing and records nothing", async () => {
    const { applied } = await migrate(database.url, dir);
    const second = await migrate(database.url, dir);
    expect(second).toEqual({ applied: [], alreadyApplied: applied.length });
    expect(await history()).toHaveLength(applied.length);
  });

  it("refuses to run when an applied migration was edited, and changes nothing", async () => {
    await migrate(database.url, dir);
    const before = await history();
    const file = path.join(dir, "20261121000000_init/migration.sql");
    await writeFile(file, `${await readFile(file, "utf8")}\n-- edited later\n`);
    await mkdir(path.join(dir, "20261122000000_next"));
    await writeFile(
      path.join(dir, "20261122000000_next/migration.sql"),
      `CREATE TABLE "ShouldNotExist" (id int);`,
    );

    await expect(migrate(database.url, dir)).rejects.toThrow(
      /20261121000000_init was edited after it was applied/,
    );
    expect(await history()).toEqual(before);
    const created = await query(
      `SELECT 1 FROM information_schema.tables WHERE table_name = 'ShouldNotExist'`,
    );
    expect(created).toHaveLength(0);
  });

  it("rolls back a failing migration entirely and records nothing for it", async () => {
    await mkdir(path.join(dir, "20261122000000_broken"));
    await writeFile(
      path.join(dir, "20261122000000_broken/migration.sql"),
      `CREATE TABLE "HalfDone" (id int);\nALTER TABLE "NoSuchTable" ADD COLUMN x int;`,
    );
    const error = await migrate(database.url, dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MigrationError);
    expect(String(error)).toMatch(/20261122000000_broken failed and was rolled back/);
    expect((await history()).map((row) => row.migration_name)).toEqual(["20261121000000_init"]);
    expect(await query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'HalfDone'`)).toHaveLength(
      0,
    );
  });

  it("refuses a database that has a migration this checkout does not know", async () => {
    await migrate(database.url, dir);
    await rm(path.join(dir, "20261121000000_init"), { recursive: true });
    await expect(migrate(database.url, dir)).rejects.toThrow(/not in prisma\/migrations/);
  });
});
