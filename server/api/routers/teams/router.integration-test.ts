import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { DEMO_TEAMS, seedIfEmpty } from "@/server/db/seed";
import { createLogger } from "@/server/log";
import { type SessionUser, userForToken } from "@/server/services/auth/sessions";
import { createTestDatabase } from "@/test/database";

let database: { url: string; drop: () => Promise<void> };
let db: Db;
const cookies: string[] = [];

function callerAs(user: SessionUser | null) {
  const ctx: Context = {
    db,
    user,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "teams" }),
    setCookie: (cookie) => cookies.push(cookie),
    cluster: () => Promise.reject(new Error("the teams router reads no cluster")),
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return createCaller(ctx);
}

async function signedIn(email: string): Promise<SessionUser> {
  const user = await callerAs(null).auth.signIn({ email, password: "rebound-demo" });
  return user;
}

beforeAll(async () => {
  database = await createTestDatabase("it_teams");
  await migrate(database.url);
  db = createDb(database.url);
  expect(await seedIfEmpty(db)).toBe(true);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

describe("teams router (real Postgres)", () => {
  it("lists the seeded teams with their quotas to a signed-in user, and seeding twice adds nothing", async () => {
    const teams = await callerAs(await signedIn("viewer@rebound.local")).teams.list();
    expect(teams.map((team) => team.name)).toEqual(DEMO_TEAMS.map((team) => team.name).sort());
    const research = teams.find((team) => team.name === "llm-research");
    expect(research?.namespace).toBe("hyperpod-ns-llm-research");
    expect(research?.quotas.find((quota) => quota.resource === "nvidia.com/gpu")?.guaranteed).toBe(16);
    expect(await seedIfEmpty(db)).toBe(false);
    expect(await db.team.count()).toBe(DEMO_TEAMS.length);
  });

  it("refuses the list without a session (team ids, namespaces and quotas are not public)", async () => {
    await expect(callerAs(null).teams.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("rejects a wrong input type with the field named, and writes nothing", async () => {
    const admin = await signedIn("admin@rebound.local");
    const [teamsBefore, auditBefore] = [await db.team.count(), await db.auditLog.count()];
    const bad = { name: 42, displayName: "X", guaranteedGpus: "eight" } as unknown as {
      name: string;
      displayName: string;
      guaranteedGpus: number;
    };
    const error = await callerAs(admin)
      .teams.create(bad)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    const cause = (error as TRPCError).cause;
    expect(cause).toBeInstanceOf(ZodError);
    expect((cause as ZodError).issues.map((issue) => issue.path.join("."))).toEqual([
      "name",
      "guaranteedGpus",
    ]);
    expect(await db.team.count()).toBe(teamsBefore);
    expect(await db.auditLog.count()).toBe(auditBefore);
  });

  it("refuses guaranteed GPUs it cannot check against the cluster (unreadable here), and writes nothing", async () => {
    const admin = await signedIn("admin@rebound.local");
    const [teamsBefore, auditBefore] = [await db.team.count(), await db.auditLog.count()];
    await expect(
      callerAs(admin).teams.create({ name: "speech", displayName: "Speech", guaranteedGpus: 4 }),
    ).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringMatching(
        /^speech: guaranteed nvidia.com\/gpu 4 cannot be checked against the cluster's capacity \(the cluster cannot be read: the teams router reads no cluster\)/,
      ),
    });
    expect([await db.team.count(), await db.auditLog.count()]).toEqual([teamsBefore, auditBefore]);
  });

  it("lets only a cluster admin create a team, audits it, and refuses a duplicate", async () => {
    // No guaranteed GPUs: nothing to check against the cluster (quota-overcommit.integration-test.ts checks).
    const input = { name: "speech", displayName: "Speech", guaranteedGpus: 0 };
    await expect(callerAs(null).teams.create(input)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const engineer = await signedIn("engineer@rebound.local");
    await expect(callerAs(engineer).teams.create(input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await db.team.findUnique({ where: { name: "speech" } })).toBeNull();

    const admin = await signedIn("admin@rebound.local");
    const created = await callerAs(admin).teams.create(input);
    const row = await db.team.findUnique({ where: { id: created.id }, select: { namespace: true } });
    expect(row?.namespace).toBe("hyperpod-ns-speech");
    const audit = await db.auditLog.findFirst({ where: { action: "team.create", target: "team/speech" } });
    expect(audit?.userId).toBe(admin.id);
    expect(audit?.details).toEqual({ before: null, after: input });

    await expect(callerAs(admin).teams.create(input)).rejects.toMatchObject({
      code: "CONFLICT",
      message: "a team named speech already exists",
    });
  });
});

describe("auth router", () => {
  it("refuses a wrong password and creates no session", async () => {
    const before = await db.session.count();
    await expect(
      callerAs(null).auth.signIn({ email: "viewer@rebound.local", password: "nope" }),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await db.session.count()).toBe(before);
  });

  it("signs in with a session cookie that identifies the user with their roles", async () => {
    cookies.length = 0;
    const user = await signedIn("viewer@rebound.local");
    expect(user.memberships.map((m) => m.role)).toEqual(["viewer", "viewer"]);
    const cookie = cookies.at(-1) ?? "";
    expect(cookie).toMatch(/^rebound_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    const token = decodeURIComponent(cookie.split(";")[0]?.split("=")[1] ?? "");
    expect((await userForToken(db, token))?.email).toBe("viewer@rebound.local");
    expect(await userForToken(db, `${token}x`)).toBeNull();
  });
});
