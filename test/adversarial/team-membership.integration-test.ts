import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { signIn } from "@/server/services/auth/sessions";
import { stopCapacitySamplers } from "@/server/services/governance/sampler";
import { createSeededTestDatabase } from "@/test/database";

/**
 * Issue 34, item 5: a team admin could add another team's user to their team, and nobody could remove a
 * member. On real Postgres with the seeded teams: only a cluster admin adds a user who is not a member; team
 * admins remove their own team's members, never another team's, never a cluster admin, never the team's last
 * team admin; every refusal leaves the membership rows as they were (read back), and every change is audited
 * with before → after.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
const LLM = "llm-research";

/** A caller signed in now (a session carries the roles of its sign-in). */
async function as(email: string) {
  const result = await signIn(db, { email, password: "rebound-demo" });
  if (!result.ok) throw new Error(result.reason);
  const ctx: Context = {
    db,
    user: result.user,
    sessionToken: result.token,
    share: null,
    log: createLogger({ test: "adv-team-membership" }),
    setCookie: () => undefined,
    cluster: () => Promise.reject(new Error("membership reads no cluster")),
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return createCaller(ctx);
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
  );

const idOf = async (email: string) => (await db.user.findUniqueOrThrow({ where: { email } })).id;

/** Every membership row, and the audit count. */
async function memberships() {
  const [rows, audit] = await Promise.all([
    db.membership.findMany({ orderBy: { id: "asc" } }),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ rows, audit });
}

const roleIn = async (team: string, email: string) =>
  (
    await db.membership.findFirst({
      where: { team: { name: team }, user: { email } },
      select: { role: true },
    })
  )?.role ?? null;

beforeAll(async () => {
  database = await createSeededTestDatabase("adv_team_membership");
  db = createDb(database.url);
  // Vision gets a team admin of its own (the "other team's admin" below), given by a cluster admin.
  await (await as("admin@rebound.local")).governance.members.setRole({
    team: "vision",
    userId: await idOf("vision@rebound.local"),
    role: "team_admin",
  });
}, 60_000);

afterAll(async () => {
  // Governance procedures start the capacity sampler (server/api/routers/governance/procedure.ts).
  stopCapacitySamplers();
  await db?.$disconnect();
  await database?.drop();
});

describe("team membership", () => {
  it("refuses a team admin adding another team's user, or any non-member, to their team; nothing changes", async () => {
    const before = await memberships();
    const lead = await as("lead@rebound.local");
    const visionUser = await idOf("vision@rebound.local");
    for (const role of ["viewer", "engineer", "team_admin"] as const) {
      expect(await outcome(lead.governance.members.setRole({ team: LLM, userId: visionUser, role }))).toBe(
        `FORBIDDEN: Vision Engineer is not a member of ${LLM}: only a cluster admin adds users to a team`,
      );
    }
    expect(
      await outcome(
        lead.governance.members.setRole({
          team: LLM,
          userId: visionUser,
          role: "viewer",
          previousRole: null,
        }),
      ),
    ).toMatch(/^FORBIDDEN: /);
    const list = await lead.governance.members.list({ team: LLM });
    expect([list.canAdd, list.canEdit]).toEqual([false, true]);
    expect(await memberships()).toBe(before);
    expect(await roleIn(LLM, "vision@rebound.local")).toBeNull();
  });

  it("refuses removals outside a team admin's reach: another team's member, a cluster admin, by an engineer", async () => {
    const before = await memberships();
    const visionAdmin = await as("vision@rebound.local");
    const lead = await as("lead@rebound.local");
    const engineer = await as("engineer@rebound.local");
    const viewer = await idOf("viewer@rebound.local");
    expect(await outcome(visionAdmin.governance.members.remove({ team: LLM, userId: viewer }))).toBe(
      `FORBIDDEN: only a team admin of ${LLM} or a cluster admin may remove its members`,
    );
    expect(
      await outcome(lead.governance.members.remove({ team: LLM, userId: await idOf("admin@rebound.local") })),
    ).toBe(`FORBIDDEN: you may not remove Cluster Admin (cluster_admin) from ${LLM}`);
    expect(await outcome(engineer.governance.members.remove({ team: LLM, userId: viewer }))).toMatch(
      /^FORBIDDEN: /,
    );
    // Not a member: nothing to remove, said so.
    expect(
      await outcome(
        lead.governance.members.remove({ team: LLM, userId: await idOf("vision@rebound.local") }),
      ),
    ).toBe(`NOT_FOUND: userId: Vision Engineer is not a member of ${LLM}`);
    expect(await memberships()).toBe(before);
  });

  it("keeps the last team admin: a team admin can neither remove nor demote themselves then", async () => {
    const before = await memberships();
    const lead = await as("lead@rebound.local");
    const self = await idOf("lead@rebound.local");
    const last = `CONFLICT: Team Lead is the last team admin of ${LLM}: make another member team admin first`;
    expect(await outcome(lead.governance.members.remove({ team: LLM, userId: self }))).toBe(last);
    expect(await outcome(lead.governance.members.setRole({ team: LLM, userId: self, role: "viewer" }))).toBe(
      last,
    );
    const list = await lead.governance.members.list({ team: LLM });
    expect(list.members.find((member) => member.email === "lead@rebound.local")?.canRemove).toBe(false);
    expect(await memberships()).toBe(before);
  });

  it("keeps the last cluster admin, whoever asks", async () => {
    const admin = await as("admin@rebound.local");
    const self = await idOf("admin@rebound.local");
    await admin.governance.members.remove({ team: "vision", userId: self });
    const before = await memberships();
    expect(await outcome(admin.governance.members.remove({ team: LLM, userId: self }))).toBe(
      "CONFLICT: Cluster Admin is the last cluster admin: make someone else cluster admin first",
    );
    expect(await memberships()).toBe(before);
    await admin.governance.members.setRole({ team: "vision", userId: self, role: "cluster_admin" });
  });

  it("lets a team admin remove a member and a cluster admin add them back, each audited before → after", async () => {
    const viewer = await idOf("viewer@rebound.local");
    const lead = await as("lead@rebound.local");
    expect(
      await lead.governance.members.remove({ team: LLM, userId: viewer, previousRole: "viewer" }),
    ).toEqual({
      userId: viewer,
      removed: "viewer",
    });
    expect(await roleIn(LLM, "viewer@rebound.local")).toBeNull();
    expect(await roleIn("vision", "viewer@rebound.local")).toBe("viewer");
    const removal = await db.auditLog.findFirstOrThrow({
      where: { action: "member.remove", target: `team/${LLM}/member/${viewer}` },
    });
    expect(removal.userId).toBe(await idOf("lead@rebound.local"));
    expect(removal.details).toEqual({ user: "viewer@rebound.local", before: "viewer", after: null });

    await (await as("admin@rebound.local")).governance.members.setRole({
      team: LLM,
      userId: viewer,
      role: "viewer",
      previousRole: null,
    });
    expect(await roleIn(LLM, "viewer@rebound.local")).toBe("viewer");
    const added = await db.auditLog.findFirstOrThrow({
      where: { action: "member.setRole", target: `team/${LLM}/member/${viewer}` },
      orderBy: { createdAt: "desc" },
    });
    expect(added.details).toEqual({ user: "viewer@rebound.local", before: null, after: "viewer" });
    // The team admin reads the removal in the governance audit of their team.
    const audit = await lead.governance.audit({ team: LLM });
    expect(audit.map((entry) => entry.action)).toContain("member.remove");
  });

  it("lets one of two team admins removing each other at once through, so the team keeps one", async () => {
    const admin = await as("admin@rebound.local");
    const engineerId = await idOf("engineer@rebound.local");
    await admin.governance.members.setRole({ team: LLM, userId: engineerId, role: "team_admin" });
    const [lead, second] = [await as("lead@rebound.local"), await as("engineer@rebound.local")];
    const results = await Promise.all([
      outcome(lead.governance.members.remove({ team: LLM, userId: engineerId })),
      outcome(second.governance.members.remove({ team: LLM, userId: await idOf("lead@rebound.local") })),
    ]);
    expect(results.filter((result) => result === "allowed")).toHaveLength(1);
    expect(results.find((result) => result !== "allowed")).toMatch(/^CONFLICT: .* is the last team admin of/);
    expect(await db.membership.count({ where: { team: { name: LLM }, role: "team_admin" } })).toBe(1);
  });
});
