import { existsSync, statSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "./embedded";

/**
 * The embedded server's password is random and readable by the launcher's user only (issue 16: a local pod
 * on the same machine reached the database with the old fixed password); a data dir made with the old
 * password is moved to a random one at start.
 */
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const withPassword = (url: string, password: string) => {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
};

describe("embedded PostgreSQL password", () => {
  it("is random, kept 0600 beside the data, and the old fixed one is refused; an old data dir is rotated", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "rebound-pg-"));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const first = await startEmbeddedPostgres({ dataDir: dir });
    const file = path.join(dir, "postgres-password");
    const password = (await readFile(file, "utf8")).trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new URL(first.url).password).toBe(password);
    expect(await canConnect(first.url)).toBe(true);
    expect(await canConnect(withPassword(first.url, "rebound"))).toBe(false);

    // A data dir from before: the fixed password, no password file.
    const admin = new pg.Client({ connectionString: first.url });
    await admin.connect();
    await admin.query("ALTER ROLE rebound PASSWORD 'rebound'");
    await admin.end();
    await first.stop();
    await rm(file);

    const second = await startEmbeddedPostgres({ dataDir: dir });
    try {
      expect(existsSync(file)).toBe(true);
      const rotated = (await readFile(file, "utf8")).trim();
      expect(rotated).not.toBe("rebound");
      expect(new URL(second.url).password).toBe(rotated);
      expect(await canConnect(second.url)).toBe(true);
      expect(await canConnect(withPassword(second.url, "rebound"))).toBe(false);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
