import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import type { Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import type { QuotaUpdateInput, SchedulerUpdateInput } from "@/server/services/governance/governance.schema";
import { stopCapacitySamplers } from "@/server/services/governance/sampler";

/**
 * The governance router on real Postgres and a real local operator: who may change what (every refusal
 * changes nothing), optimistic concurrency naming who changed it, audit rows, field-level errors.
 */
let stack: ConsoleStack;
let db: Db;
const LLM = "llm-research";

const caller = async (email: string) => (await stack.callerFor(email)).caller;
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );
const messageOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
  );

function quotaInput(version: number, gpus: number, team = LLM): QuotaUpdateInput {
  return {
    team,
    version,
    activation: "Enabled",
    strategy: "LendAndBorrow",
    borrowLimitPercent: 100,
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 10,
    resources: [{ instanceType: "default", resource: "nvidia.com/gpu", guaranteed: gpus }],
  };
}

async function schedulerInput(
  extra: Array<{ name: string; weight: number }> = [],
): Promise<SchedulerUpdateInput> {
  const current = await (await caller("admin@rebound.local")).governance.scheduler.get();
  return {
    version: current.version,
    taskRanking: current.taskRanking,
    fairShare: current.fairShare,
    idleResourceSharing: current.idleResourceSharing,
    priorityClasses: [...current.priorityClasses.map(({ name, weight }) => ({ name, weight })), ...extra],
  };
}

/** Everything a governance mutation could change. */
async function state() {
  const [quotas, resources, scheduler, classes, memberships, audit] = await Promise.all([
    db.computeQuota.findMany({ orderBy: { teamId: "asc" } }),
    db.computeQuotaResource.findMany({ orderBy: { id: "asc" } }),
    db.schedulerConfig.findMany(),
    db.priorityClass.findMany({ orderBy: { name: "asc" } }),
    db.membership.findMany({ orderBy: { id: "asc" } }),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ quotas, resources, scheduler, classes, memberships, audit });
}

const userId = async (email: string) => (await stack.user(email)).id;

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_governance", nodes: 1, gpusPerNode: 2 });
  db = stack.db;
  // Vision gets a team admin (the "other team's admin" below), given by a cluster admin.
  const admin = await caller("admin@rebound.local");
  await admin.governance.members.setRole({
    team: "vision",
    userId: await userId("vision@rebound.local"),
    role: "team_admin",
  });
}, 120_000);

afterAll(async () => {
  stopCapacitySamplers();
  await stack?.stop();
}, 60_000);

describe("who may change governance", () => {
  it("refuses an engineer, a viewer and another team's admin every mutation, and nothing changes", async () => {
    const before = await state();
    const version = (await (await caller("admin@rebound.local")).governance.quota.get({ team: LLM })).version;
    const scheduler = await schedulerInput([{ name: "batch", weight: 5 }]);
    const viewerId = await userId("viewer@rebound.local");
    for (const email of ["engineer@rebound.local", "viewer@rebound.local", "vision@rebound.local"]) {
      const as = await caller(email);
      const refusals = await Promise.all([
        codeOf(as.governance.quota.update(quotaInput(version, 1))),
        codeOf(as.governance.scheduler.update(scheduler)),
        codeOf(as.governance.members.setRole({ team: LLM, userId: viewerId, role: "engineer" })),
        codeOf(as.governance.whatIf({ kind: "quota", quota: quotaInput(version, 1) })),
        codeOf(as.governance.whatIf({ kind: "scheduler", scheduler })),
      ]);
      expect({ email, refusals }).toEqual({ email, refusals: Array(5).fill("FORBIDDEN") });
    }
    // A team admin: not another team's quota, not the scheduler, never a cluster admin.
    const lead = await caller("lead@rebound.local");
    const visionVersion = (await lead.governance.quota.get({ team: "vision" })).version;
    expect(await codeOf(lead.governance.quota.update(quotaInput(visionVersion, 1, "vision")))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(lead.governance.scheduler.update(scheduler))).toBe("FORBIDDEN");
    expect(
      await messageOf(
        lead.governance.members.setRole({ team: LLM, userId: viewerId, role: "cluster_admin" }),
      ),
    ).toBe("FORBIDDEN: you may not change Viewer's role in llm-research (viewer) to cluster_admin");
    const adminId = await userId("admin@rebound.local");
    expect(
      await codeOf(lead.governance.members.setRole({ team: LLM, userId: adminId, role: "viewer" })),
    ).toBe("FORBIDDEN");
    expect(await state()).toBe(before);
  });

  it("lets the team's admin change its quota; a stale version is refused naming who changed it, and changes nothing", async () => {
    const lead = await caller("lead@rebound.local");
    const read = await lead.governance.quota.get({ team: LLM });
    expect(read.canEdit).toBe(true);
    const written = await lead.governance.quota.update(quotaInput(read.version, 3));
    expect(written.version).toBe(read.version + 1);
    expect(written.updatedBy?.name).toBe("Team Lead");
    expect(written.resources).toEqual([
      { instanceType: "default", resource: "nvidia.com/gpu", guaranteed: 3, absoluteBorrowLimit: null },
    ]);
    const row = await db.computeQuota.findFirst({ where: { team: { name: LLM } } });
    expect(row?.updatedById).toBe(await userId("lead@rebound.local"));

    const before = await state();
    const admin = await caller("admin@rebound.local");
    const stale = await messageOf(admin.governance.quota.update(quotaInput(read.version, 7)));
    expect(stale).toMatch(
      new RegExp(
        `^CONFLICT: the quota of llm-research was changed by Team Lead at \\d\\d:\\d\\d UTC \\(version ${read.version + 1}; you read ${read.version}\\); reload to see their change$`,
      ),
    );
    expect(await state()).toBe(before);

    const audit = await db.auditLog.findFirst({
      where: { action: "quota.update", target: `team/${LLM}` },
      orderBy: { createdAt: "desc" },
    });
    expect(audit?.userId).toBe(await userId("lead@rebound.local"));
    expect(audit?.details).toMatchObject({
      before: { version: read.version },
      after: { version: read.version + 1, borrowLimitPercent: 100, resources: [{ guaranteed: 3 }] },
    });
  });

  it("lets exactly one of two writes of the same version through at the same time", async () => {
    const lead = await caller("lead@rebound.local");
    const admin = await caller("admin@rebound.local");
    const { version } = await lead.governance.quota.get({ team: LLM });
    // Both lower the guarantee (3 → 2 or 1), so neither meets the over-commit check on this 2-GPU cluster.
    const results = await Promise.all([
      codeOf(lead.governance.quota.update(quotaInput(version, 2))),
      codeOf(admin.governance.quota.update(quotaInput(version, 1))),
    ]);
    expect([...results].sort()).toEqual(["CONFLICT", "allowed"]);
    const after = await lead.governance.quota.get({ team: LLM });
    expect(after.version).toBe(version + 1);
    const winner = results[0] === "allowed" ? 2 : 1;
    expect(after.resources[0]?.guaranteed).toBe(winner);
  });

  it("lets a cluster admin change the scheduler config, refuses a stale one, and a duplicate class by its field", async () => {
    const admin = await caller("admin@rebound.local");
    const input = await schedulerInput([{ name: "batch", weight: 5 }]);
    const written = await admin.governance.scheduler.update(input);
    expect(written.version).toBe(input.version + 1);
    expect(written.priorityClasses.map((entry) => [entry.name, entry.weight])).toEqual([
      ["inference", 90],
      ["training", 70],
      ["batch", 5],
    ]);
    const before = await state();
    expect(await messageOf(admin.governance.scheduler.update(input))).toMatch(
      /^CONFLICT: the scheduler config was changed by Cluster Admin at \d\d:\d\d UTC/,
    );
    const duplicate = await schedulerInput([{ name: "training", weight: 1 }]);
    const error = await admin.governance.scheduler.update(duplicate).catch((caught: unknown) => caught);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toContain("training is already defined at priorityClasses[1]");
    expect(await state()).toBe(before);
    const audit = await db.auditLog.findFirst({ where: { action: "scheduler.update" } });
    expect(audit?.details).toMatchObject({ after: { version: input.version + 1 } });
  });

  it("lets a team admin give roles in their team, refusing a role read before someone else changed it", async () => {
    const lead = await caller("lead@rebound.local");
    const listed = await lead.governance.members.list({ team: LLM });
    expect(listed.assignable).toEqual(["viewer", "engineer", "team_admin"]);
    const viewer = listed.members.find((member) => member.email === "viewer@rebound.local");
    expect(viewer).toMatchObject({ role: "viewer", canChange: true });
    expect(listed.members.find((member) => member.email === "admin@rebound.local")?.canChange).toBe(false);
    const changed = await lead.governance.members.setRole({
      team: LLM,
      userId: viewer?.userId ?? "",
      role: "engineer",
      previousRole: "viewer",
    });
    expect(changed.role).toBe("engineer");
    const before = await state();
    expect(
      await messageOf(
        lead.governance.members.setRole({
          team: LLM,
          userId: viewer?.userId ?? "",
          role: "team_admin",
          previousRole: "viewer",
        }),
      ),
    ).toBe("CONFLICT: Viewer's role in llm-research is now engineer, not viewer; reload to see the change");
    expect(await state()).toBe(before);
    const audit = await db.auditLog.findFirst({
      where: { action: "member.setRole", target: { startsWith: `team/${LLM}/` } },
    });
    expect(audit?.details).toEqual({ user: "viewer@rebound.local", before: "viewer", after: "engineer" });
    // An engineer of the team reads its members but changes none.
    const asEngineer = await (await caller("engineer@rebound.local")).governance.members.list({ team: LLM });
    expect(asEngineer).toMatchObject({ canEdit: false, assignable: [] });
    expect(await codeOf((await caller("vision@rebound.local")).governance.members.list({ team: LLM }))).toBe(
      "FORBIDDEN",
    );
  });

  it("shows the audit newest first: a cluster admin all, a team admin their team's, an engineer none", async () => {
    const all = await (await caller("admin@rebound.local")).governance.audit({});
    expect(all.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["quota.update", "scheduler.update", "member.setRole"]),
    );
    const times = all.map((entry) => entry.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const lead = await caller("lead@rebound.local");
    const mine = await lead.governance.audit({});
    expect(mine.length).toBeGreaterThan(0);
    expect(
      mine.every((entry) => entry.target === `team/${LLM}` || entry.target.startsWith(`team/${LLM}/`)),
    ).toBe(true);
    expect(await codeOf(lead.governance.audit({ team: "vision" }))).toBe("FORBIDDEN");
    expect(await codeOf((await caller("engineer@rebound.local")).governance.audit({}))).toBe("FORBIDDEN");
    expect(
      (await (await caller("vision@rebound.local")).governance.audit({ team: "vision" }))[0],
    ).toMatchObject({
      action: "member.setRole",
      actor: { name: "Cluster Admin" },
    });
  });
});

describe("bad input over HTTP", () => {
  async function post(path: string, input: unknown) {
    const { token } = await stack.callerFor("lead@rebound.local");
    const user = await stack.user("lead@rebound.local");
    const ctx: Context = {
      db,
      user,
      sessionToken: token,
      share: null,
      log: createLogger({ test: "governance-http" }),
      setCookie: () => undefined,
      cluster: async () => stack.source,
      clientAddress: "127.0.0.1",
      secure: false,
    };
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request(`http://console.test/api/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: input }),
      }),
      router: appRouter,
      createContext: () => ctx,
    });
    const body = (await response.json()) as {
      error: { json: { message: string; data: { issues: Array<{ path: string; message: string }> } } };
    };
    return { status: response.status, error: body.error.json };
  }

  it("names the nested field that is wrong, and writes nothing", async () => {
    const before = await state();
    const { version } = await (await caller("lead@rebound.local")).governance.quota.get({ team: LLM });
    const negative = quotaInput(version, 1);
    negative.resources.push({ instanceType: "default", resource: "cpu", guaranteed: -4 });
    const answer = await post("governance.quota.update", negative);
    expect(answer.status).toBe(400);
    expect(answer.error.message).toBe("resources[1].guaranteed: expected a number ≥ 0");
    expect(answer.error.data.issues).toEqual([
      { path: "resources[1].guaranteed", message: "expected a number ≥ 0" },
    ]);

    const lender = { ...quotaInput(version, 1), strategy: "DontLend" };
    lender.resources = [{ resource: "nvidia.com/gpu", guaranteed: 1, absoluteBorrowLimit: 2 }];
    const refused = await post("governance.quota.update", lender);
    expect(refused.status).toBe(400);
    expect(refused.error.message).toBe(
      "resources[0].absoluteBorrowLimit: a team that does not borrow (DontLend) has no borrow limit: remove it or choose LendAndBorrow",
    );
    const duplicated = quotaInput(version, 1);
    duplicated.resources.push({ resource: "nvidia.com/gpu", guaranteed: 2 });
    expect((await post("governance.quota.update", duplicated)).error.message).toBe(
      "resources[1].resource: nvidia.com/gpu on default is already listed at resources[0]",
    );
    const outOfRange = { ...quotaInput(version, 1), borrowLimitPercent: 0 };
    expect((await post("governance.quota.update", outOfRange)).error.message).toBe(
      "borrowLimitPercent: expected a whole percent ≥ 1",
    );
    expect(await state()).toBe(before);
  });
});
