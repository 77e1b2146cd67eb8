import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { bootstrapFromEnv, prepareDatabase } from "@/scripts/lib/database";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { DEMO_PASSWORD, DEMO_USERS } from "@/server/db/seed";
import { createLogger } from "@/server/log";
import type { SessionUser } from "@/server/services/auth/sessions";
import { createFirstAdmin } from "@/server/services/setup/first-admin";
import { demoUsersSeeded } from "@/server/services/setup/queries";
import { hashSetupToken, issueSetupToken } from "@/server/services/setup/tokens";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 4: a NODE_ENV=production start (the Docker image's) seeded the five demo users with the
 * published password `rebound-demo`, and admin@rebound.local signed in as cluster admin. A production start
 * now seeds no users: the first admin comes from a one-time setup link printed once, or from the password
 * the installer supplies. Each attack below is refused and leaves the users as they were.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const PRODUCTION = {
  REBOUND_SEED: "auto",
  NODE_ENV: "production",
  REBOUND_CLUSTER: "local",
  PORT: 3000,
} as const;
const LINK = /\/setup\?token=([A-Za-z0-9_-]+)/g;
const STRONG = "correct horse battery staple";
let dataDir: string;
let address = 0;

function caller(db: Db, user: SessionUser | null = null) {
  const ctx: Context = {
    db,
    user,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "production-passwords" }),
    setCookie: () => undefined,
    cluster: () => Promise.reject(new Error("no cluster in this test")),
    // A fresh address per call: the sign-in limiter must not be what refuses.
    clientAddress: `10.0.${Math.floor(++address / 250)}.${address % 250}`,
    secure: false,
  };
  return createCaller(ctx);
}

/** The launcher's database step, as scripts/start.ts runs it, against `url`; returns what it printed. */
async function productionStart(url: string, admin: { email: string; password: string } | null = null) {
  const lines: string[] = [];
  await prepareDatabase({
    databaseUrl: url,
    dataDir,
    seed: bootstrapFromEnv(PRODUCTION, admin),
    log: (line) => lines.push(line),
  });
  return lines.join("\n");
}

const linksIn = (output: string) => [...output.matchAll(LINK)].map((match) => match[1] ?? "");

async function refusal(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TRPCError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

async function expectNoDemoSignIn(db: Db): Promise<void> {
  for (const user of DEMO_USERS) {
    const error = await refusal(caller(db).auth.signIn({ email: user.email, password: DEMO_PASSWORD }));
    expect(error.code, user.email).toBe("UNAUTHORIZED");
    expect(error.message).toBe("wrong email or password");
  }
}

const adminInput = (token: string, email = "ops@example.com") => ({
  token,
  email,
  name: "Ops",
  password: STRONG,
});

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-adv-passwords-"));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("a production start without a supplied password", () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let output: string;

  beforeAll(async () => {
    database = await createTestDatabase("adv_prod_link");
    output = await productionStart(database.url);
    db = createDb(database.url);
  });

  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("seeds no user: every demo email with rebound-demo is refused", async () => {
    expect(await db.user.count()).toBe(0);
    expect(await db.team.count()).toBe(0);
    await expectNoDemoSignIn(db);
    expect(output).not.toContain("demo users");
    // …and the sign-in page does not name them.
    expect(await demoUsersSeeded(db)).toBe(false);
  });

  it("prints one setup link, stored only as its hash", async () => {
    const links = linksIn(output);
    expect(links).toHaveLength(1);
    const token = links[0] ?? "";
    expect(output).toContain(`http://localhost:3000/setup?token=${token}`);
    const rows = await db.setupToken.findMany({ select: { tokenHash: true, usedAt: true } });
    expect(rows).toEqual([{ tokenHash: hashSetupToken(token), usedAt: null }]);
  });

  it("refuses a forged token and a weak password, creating nothing", async () => {
    const token = linksIn(output)[0] ?? "";
    expect(await caller(db).setup.status({ token: "A".repeat(43) })).toBe("invalid");
    const forged = await refusal(caller(db).setup.createAdmin(adminInput("A".repeat(43))));
    expect(forged.code).toBe("FORBIDDEN");
    expect(forged.message).toMatch(/setup link is unknown, used or expired/);
    const weak = await refusal(caller(db).setup.createAdmin({ ...adminInput(token), password: "short" }));
    expect(weak.code).toBe("BAD_REQUEST");
    expect(weak.cause).toBeInstanceOf(ZodError);
    expect((weak.cause as ZodError).issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["password", "at least 12 characters"],
    ]);
    expect(await db.user.count()).toBe(0);
    expect(await caller(db).setup.status({ token })).toBe("open");
  });

  it("creates the first admin once: the link is then spent, a second setup is refused", async () => {
    const token = linksIn(output)[0] ?? "";
    expect(await caller(db).setup.createAdmin(adminInput(token, "Ops@Example.com"))).toEqual({
      email: "ops@example.com",
    });
    for (const attempt of [adminInput(token), adminInput(token, "mallory@example.com")]) {
      const again = await refusal(caller(db).setup.createAdmin(attempt));
      expect(again.code).toBe("FORBIDDEN");
      expect(again.message).toMatch(/a cluster admin already exists/);
    }
    expect(await caller(db).setup.status({ token })).toBe("done");
    expect(await db.user.findMany({ select: { email: true } })).toEqual([{ email: "ops@example.com" }]);
    const audit = await db.auditLog.findMany({ select: { action: true, target: true } });
    expect(audit).toEqual([{ action: "setup.first-admin", target: "user/ops@example.com" }]);
  });

  it("the admin signs in as cluster admin and can create the first team", async () => {
    const user = await caller(db).auth.signIn({ email: "ops@example.com", password: STRONG });
    expect(user.memberships.map((membership) => membership.role)).toEqual(["cluster_admin"]);
    await caller(db, user).teams.create({
      name: "llm-research",
      displayName: "LLM Research",
      guaranteedGpus: 8,
      // No cluster in this test to check the guarantee against: the admin allows over-commit explicitly.
      allowOvercommit: true,
    });
    expect(await db.team.count()).toBe(2);
  });

  it("a restart once an admin exists prints no link and seeds no demo user", async () => {
    const again = await productionStart(database.url);
    expect(linksIn(again)).toEqual([]);
    expect(await db.user.count()).toBe(1);
    await expectNoDemoSignIn(db);
  });
});

describe("setup links: expiry, and a restart voids the earlier one", () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase("adv_prod_expiry");
    await productionStart(database.url);
    db = createDb(database.url);
  });

  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("refuses an expired link and one a later start replaced, creating nothing", async () => {
    const first = await issueSetupToken(db);
    const second = await issueSetupToken(db);
    if (!first || !second) throw new Error("no cluster admin yet: a link is expected");
    const replaced = await refusal(caller(db).setup.createAdmin(adminInput(first.token)));
    expect(replaced.message).toMatch(/setup link is unknown, used or expired/);
    const later = new Date(second.expiresAt.getTime() + 1000);
    expect(await createFirstAdmin(db, { input: adminInput(second.token), now: later })).toEqual({
      ok: false,
      reason: expect.stringMatching(/unknown, used or expired/),
    });
    expect(await db.user.count()).toBe(0);
  });

  it("two setups racing with one link: exactly one admin is created", async () => {
    const link = await issueSetupToken(db);
    if (!link) throw new Error("no cluster admin yet: a link is expected");
    const results = await Promise.allSettled([
      caller(db).setup.createAdmin(adminInput(link.token, "first@example.com")),
      caller(db).setup.createAdmin(adminInput(link.token, "second@example.com")),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(await db.user.count()).toBe(1);
    expect(await db.membership.count({ where: { role: "cluster_admin" } })).toBe(1);
  });
});

describe("the one-machine demo (npm start: not production, local back end)", () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase("adv_prod_demo");
    db = createDb(database.url);
  });

  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  it("keeps its demo users, says so, and prints no setup link", async () => {
    const lines: string[] = [];
    await prepareDatabase({
      databaseUrl: database.url,
      dataDir,
      seed: bootstrapFromEnv({ ...PRODUCTION, NODE_ENV: "development" }, null),
      log: (line) => lines.push(line),
    });
    const output = lines.join("\n");
    expect(output).toMatch(
      /demo users seeded: admin@rebound\.local.*password rebound-demo — for this machine only/,
    );
    expect(linksIn(output)).toEqual([]);
    const admin = await caller(db).auth.signIn({ email: "admin@rebound.local", password: DEMO_PASSWORD });
    expect(admin.memberships.some((membership) => membership.role === "cluster_admin")).toBe(true);
    expect(await demoUsersSeeded(db)).toBe(true);
  });
});

describe("a production start with REBOUND_ADMIN_PASSWORD (scripts/db-setup.ts, a real process)", () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase("adv_prod_supplied");
    db = createDb(database.url);
  });

  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });

  const setup = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/db-setup.ts"], {
      cwd: ROOT,
      env: childEnv({
        NODE_ENV: "production",
        DATABASE_URL: database.url,
        REBOUND_DATA_DIR: dataDir,
        ...env,
      }),
    });

  it("refuses a password shorter than 12 characters, naming the variable, and touches nothing", async () => {
    const failed = await setup({
      REBOUND_ADMIN_EMAIL: "ops@example.com",
      REBOUND_ADMIN_PASSWORD: "hunter2",
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(
      /REBOUND_ADMIN_PASSWORD: at least 12 characters \(got 7 characters, not shown\)/,
    );
    expect(failed?.stderr).not.toContain("hunter2");
    // Refused before the database is touched: not even migrated.
    const [row] = await db.$queryRaw<
      Array<{ users: string | null }>
    >`SELECT to_regclass('"User"')::text AS users`;
    expect(row?.users).toBeNull();
  });

  it("creates that admin from a Secret file, prints no setup link, and no demo user exists", async () => {
    const secret = path.join(dataDir, "admin-password");
    await writeFile(secret, `${STRONG}\n`);
    const { stdout } = await setup({
      REBOUND_ADMIN_EMAIL: "root@example.com",
      REBOUND_ADMIN_PASSWORD_FILE: secret,
    });
    expect(stdout).toContain("created the first cluster admin root@example.com");
    expect(linksIn(stdout)).toEqual([]);
    expect(await db.setupToken.count()).toBe(0);
    const user = await caller(db).auth.signIn({ email: "root@example.com", password: STRONG });
    expect(user.memberships.map((membership) => membership.role)).toEqual(["cluster_admin"]);
    await expectNoDemoSignIn(db);
    expect(await db.user.count()).toBe(1);
  });

  it("a second start with another password leaves the admin's password as it was", async () => {
    const { stdout } = await setup({
      REBOUND_ADMIN_EMAIL: "root@example.com",
      REBOUND_ADMIN_PASSWORD: "a different long password",
    });
    expect(stdout).toContain("REBOUND_ADMIN_PASSWORD is not applied to an existing user");
    expect(linksIn(stdout)).toEqual([]);
    await expect(
      caller(db).auth.signIn({ email: "root@example.com", password: STRONG }),
    ).resolves.toBeTruthy();
  });
});
