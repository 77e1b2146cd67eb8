import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { createLogger } from "@/server/log";
import type { SessionUser } from "@/server/services/auth/sessions";
import { loadNodeSignalTable } from "@/server/store/node-signals/queries";
import { createTestDatabase } from "@/test/database";

/**
 * The node-signal table's router on real Postgres: everyone signed in reads it, only a cluster admin
 * changes it (every refusal changes nothing), each change is audited with who and before/after, a bad
 * table is refused naming the row and field, a stale version names who changed it, reset returns to the
 * shipped table, and the operator's read (loadNodeSignalTable) sees what was saved.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;

function callerAs(user: SessionUser | null) {
  const ctx: Context = {
    db,
    user,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "node-signals" }),
    setCookie: () => undefined,
    cluster: () => Promise.reject(new Error("the node-signals router reads no cluster")),
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return createCaller(ctx);
}

const as = async (email: string) =>
  callerAs(await callerAs(null).auth.signIn({ email, password: "rebound-demo" }));

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
  );

/** Everything a change could touch. */
const state = async () => JSON.stringify([await db.nodeSignalConfig.findMany(), await db.auditLog.count()]);

const cordonRow = (rules: typeof DEFAULT_NODE_SIGNALS) =>
  rules.find((rule) => rule.id === "kubernetes-cordon");

beforeAll(async () => {
  database = await createTestDatabase("it_node_signals_router");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

describe("node-signals router (real Postgres)", () => {
  it("reads the shipped table until someone changes it; only cluster admins may edit", async () => {
    const viewer = await (await as("viewer@rebound.local")).nodeSignals.get();
    expect(viewer).toMatchObject({ version: 1, isDefault: true, cordonMovesPods: false, canEdit: false });
    expect(viewer.rules).toEqual(DEFAULT_NODE_SIGNALS);
    expect(viewer.updatedBy).toBeNull();
    expect((await (await as("admin@rebound.local")).nodeSignals.get()).canEdit).toBe(true);
    await expect(callerAs(null).nodeSignals.get()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("refuses every change from anyone but a cluster admin, and changes nothing", async () => {
    const before = await state();
    for (const email of ["lead@rebound.local", "engineer@rebound.local", "viewer@rebound.local"]) {
      const caller = await as(email);
      expect(await failure(caller.nodeSignals.setCordon({ version: 1, movesPods: true }))).toBe(
        "FORBIDDEN: only a cluster admin may do this",
      );
      expect(await failure(caller.nodeSignals.update({ version: 1, text: "[]" }))).toMatch(/^FORBIDDEN/);
      expect(await failure(caller.nodeSignals.reset({ version: 1 }))).toMatch(/^FORBIDDEN/);
    }
    expect(await state()).toBe(before);
  });

  it("the cordon toggle flips the cordon row between avoid and replace-now, stored and audited", async () => {
    const admin = await as("admin@rebound.local");
    const saved = await admin.nodeSignals.setCordon({ version: 1, movesPods: true });
    expect(saved).toMatchObject({ version: 2, isDefault: false, cordonMovesPods: true });
    expect(saved.updatedBy?.name).toBe(
      (await db.user.findUniqueOrThrow({ where: { email: "admin@rebound.local" } })).name,
    );
    expect(cordonRow(saved.rules)).toMatchObject({ meaning: "maintenance", action: "replace-now" });
    // Every other row is as shipped.
    expect(saved.rules.filter((rule) => rule.id !== "kubernetes-cordon")).toEqual(
      DEFAULT_NODE_SIGNALS.filter((rule) => rule.id !== "kubernetes-cordon"),
    );
    const { table } = await loadNodeSignalTable(db);
    expect(cordonRow(table)?.action).toBe("replace-now");
    const [audit] = await db.auditLog.findMany({
      where: { target: "nodeSignals" },
      orderBy: { createdAt: "desc" },
      include: { user: { select: { email: true } } },
    });
    expect(audit).toMatchObject({ action: "nodeSignals.cordon", user: { email: "admin@rebound.local" } });
    expect(audit?.details).toMatchObject({ version: 2, cordonMovesPods: { before: false, after: true } });
    const view = await admin.nodeSignals.get();
    expect(view.history[0]).toMatchObject({ action: "nodeSignals.cordon", target: "nodeSignals" });

    const off = await admin.nodeSignals.setCordon({ version: 2, movesPods: false });
    expect(off).toMatchObject({ version: 3, cordonMovesPods: false });
    expect(cordonRow(off.rules)?.action).toBe("avoid");
  });

  it("refuses a bad table naming the row and field, and changes nothing", async () => {
    const admin = await as("admin@rebound.local");
    const { version } = await admin.nodeSignals.get();
    const before = await state();
    const graced = DEFAULT_NODE_SIGNALS.map((rule) =>
      rule.id === "kubernetes-cordon" ? { ...rule, graceSeconds: 30 } : rule,
    );
    const index = DEFAULT_NODE_SIGNALS.findIndex((rule) => rule.id === "kubernetes-cordon");
    expect(await failure(admin.nodeSignals.update({ version, text: stringify(graced) }))).toBe(
      `BAD_REQUEST: rules[${index}] (kubernetes-cordon).graceSeconds: graceSeconds goes with action replace-after-grace, and only with it`,
    );
    const badMeaning = DEFAULT_NODE_SIGNALS.map((rule) =>
      rule.id === "npd-kernel-deadlock" ? { ...rule, meaning: "broken" } : rule,
    );
    expect(await failure(admin.nodeSignals.update({ version, text: JSON.stringify(badMeaning) }))).toMatch(
      /^BAD_REQUEST: rules\[\d+\] \(npd-kernel-deadlock\)\.meaning: /,
    );
    expect(await failure(admin.nodeSignals.update({ version, text: "- id: a\n  source: [\n" }))).toMatch(
      /^BAD_REQUEST: rules: not valid YAML at line \d/,
    );
    const hyperpod = DEFAULT_NODE_SIGNALS.map((rule) =>
      rule.id === "hyperpod-node-health" ? { ...rule, action: "avoid" } : rule,
    );
    expect(await failure(admin.nodeSignals.update({ version, text: stringify(hyperpod) }))).toBe(
      "BAD_REQUEST: rules[0] (hyperpod-node-health): HyperPod's sagemaker.amazonaws.com/node-health-status label keeps its meaning, the row cannot be changed",
    );
    const withoutHyperpod = DEFAULT_NODE_SIGNALS.filter((rule) => rule.id !== "hyperpod-node-health");
    expect(await failure(admin.nodeSignals.update({ version, text: stringify(withoutHyperpod) }))).toMatch(
      /^BAD_REQUEST: rules: the hyperpod-node-health row is missing/,
    );
    expect(await state()).toBe(before);
  });

  it("saves an edited table, refuses a stale version naming who changed it, and resets to the shipped table", async () => {
    const admin = await as("admin@rebound.local");
    const { version } = await admin.nodeSignals.get();
    const edited = DEFAULT_NODE_SIGNALS.map((rule) =>
      rule.id === "npd-kernel-deadlock"
        ? { ...rule, meaning: "degraded" as const, action: "avoid" as const }
        : rule,
    );
    const saved = await admin.nodeSignals.update({ version, text: stringify(edited) });
    expect(saved.version).toBe(version + 1);
    expect((await loadNodeSignalTable(db)).table).toEqual(edited);

    const before = await state();
    expect(await failure(admin.nodeSignals.reset({ version }))).toMatch(
      new RegExp(
        `^CONFLICT: the node-signal table was changed by .+ at \\d\\d:\\d\\d UTC \\(version ${version + 1}; you read ${version}\\)`,
      ),
    );
    expect(await state()).toBe(before);

    const reset = await admin.nodeSignals.reset({ version: version + 1 });
    expect(reset).toMatchObject({ version: version + 2, isDefault: true, cordonMovesPods: false });
    expect((await loadNodeSignalTable(db)).table).toEqual(DEFAULT_NODE_SIGNALS);
    const actions = (
      await db.auditLog.findMany({ where: { target: "nodeSignals" }, orderBy: { createdAt: "asc" } })
    ).map((row) => row.action);
    expect(actions).toEqual([
      "nodeSignals.cordon",
      "nodeSignals.cordon",
      "nodeSignals.update",
      "nodeSignals.reset",
    ]);
  });

  it("stored rules that no longer pass the checks: shown as a problem, not used by the operator, and reset", async () => {
    const admin = await as("admin@rebound.local");
    const { version } = await admin.nodeSignals.get();
    await db.nodeSignalConfig.update({ where: { id: 1 }, data: { rules: [{ id: "Bad Id" }] } });
    const view = await admin.nodeSignals.get();
    expect(view.problem).toMatch(
      /^the stored node-signal table no longer passes its checks: rules\[0\] \(Bad Id\)\.id: /,
    );
    expect(view.rules).toEqual(DEFAULT_NODE_SIGNALS);
    await expect(loadNodeSignalTable(db)).rejects.toThrow(/no longer passes its checks/);
    const reset = await admin.nodeSignals.reset({ version });
    expect(reset).toMatchObject({ isDefault: true, problem: null });
    expect((await loadNodeSignalTable(db)).table).toEqual(DEFAULT_NODE_SIGNALS);
  });
});
