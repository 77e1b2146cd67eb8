import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import type { QuotaUpdateInput } from "@/server/services/governance/governance.schema";
import { stopCapacitySamplers } from "@/server/services/governance/sampler";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";

/**
 * Issue 34, item 5: a team admin set their team's guaranteed GPUs to 1,000 on a 32-GPU cluster and it was
 * accepted. Here, on a real local operator with 4 nodes of 8 GPUs (LLM Research guaranteed 16, Vision 8, as
 * seeded), every way of promising more GPUs than the cluster has is refused, naming the team, the value and
 * the capacity, and the quota rows are read back unchanged; only an explicit over-commit choice saves one.
 */
let stack: ConsoleStack;
let db: Db;
const LLM = "llm-research";

const caller = async (email: string) => (await stack.callerFor(email)).caller;
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
  );

/** Every row a guarantee lives in, and the audit count. */
async function quotaRows() {
  const [teams, quotas, resources, audit] = await Promise.all([
    db.team.findMany({ orderBy: { name: "asc" } }),
    db.computeQuota.findMany({ orderBy: { teamId: "asc" } }),
    db.computeQuotaResource.findMany({ orderBy: { id: "asc" } }),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ teams, quotas, resources, audit });
}

async function gpuQuota(
  team: string,
  gpus: number,
  extra: Partial<QuotaUpdateInput> = {},
): Promise<QuotaUpdateInput> {
  const read = await (await caller("admin@rebound.local")).governance.quota.get({ team });
  return {
    team,
    version: read.version,
    activation: read.activation,
    strategy: read.strategy,
    borrowLimitPercent: read.borrowLimitPercent,
    preemptTeamTasks: read.preemptTeamTasks,
    fairShareWeight: read.fairShareWeight,
    resources: read.resources.map((row) =>
      row.resource === "nvidia.com/gpu" ? { ...row, guaranteed: gpus } : row,
    ),
    ...extra,
  };
}

const guaranteed = async (team: string) =>
  (await (await caller("admin@rebound.local")).governance.quota.get({ team })).resources.find(
    (row) => row.resource === "nvidia.com/gpu",
  )?.guaranteed;

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "adv_quota_overcommit", nodes: 4, gpusPerNode: 8 });
  db = stack.db;
}, 120_000);

afterAll(async () => {
  stopCapacitySamplers();
  await stack?.stop();
}, 60_000);

describe("guarantees that over-commit the cluster", () => {
  it("refuses a team admin's 1,000 GPUs on the 32-GPU cluster, naming team, value and capacity; the rows are unchanged", async () => {
    const before = await quotaRows();
    const lead = await caller("lead@rebound.local");
    expect(await outcome(lead.governance.quota.update(await gpuQuota(LLM, 1000)))).toBe(
      "BAD_REQUEST: llm-research: guaranteed nvidia.com/gpu 1000 would over-commit the cluster: the other teams " +
        "are guaranteed 8 and the cluster has 32, so at most 24 fits; lower it, or allow over-commit (guarantees " +
        "then promise more than the cluster can give at once)",
    );
    // One GPU over is refused as well; the what-if says so before saving, and changes nothing either.
    expect(await outcome(lead.governance.quota.update(await gpuQuota(LLM, 25)))).toMatch(
      /^BAD_REQUEST: .* 25 /,
    );
    const whatIf = await lead.governance.whatIf({ kind: "quota", quota: await gpuQuota(LLM, 1000) });
    expect(whatIf.overcommit).toMatchObject({
      state: "over",
      asked: 1000,
      others: 8,
      capacity: 32,
      atMost: 24,
    });
    expect(await quotaRows()).toBe(before);
    expect(await guaranteed(LLM)).toBe(16);
  });

  it("refuses the same through team creation, and through disabling a quota, raising it, then enabling it", async () => {
    const admin = await caller("admin@rebound.local");
    const before = await quotaRows();
    expect(
      await outcome(admin.teams.create({ name: "speech", displayName: "Speech", guaranteedGpus: 1000 })),
    ).toMatch(
      /^BAD_REQUEST: speech: guaranteed nvidia.com\/gpu 1000 would over-commit the cluster: .* 24 .* 32/,
    );
    expect(await quotaRows()).toBe(before);

    // A disabled quota guarantees nothing, so writing 1,000 there is no over-commit yet; enabling it is one.
    const lead = await caller("lead@rebound.local");
    await lead.governance.quota.update(await gpuQuota(LLM, 1000, { activation: "Disabled" }));
    const disabled = await quotaRows();
    expect(
      await outcome(lead.governance.quota.update(await gpuQuota(LLM, 1000, { activation: "Enabled" }))),
    ).toMatch(/^BAD_REQUEST: llm-research: guaranteed nvidia.com\/gpu 1000 would over-commit/);
    expect(await quotaRows()).toBe(disabled);
    await lead.governance.quota.update(await gpuQuota(LLM, 16, { activation: "Enabled" }));
    expect(await guaranteed(LLM)).toBe(16);
  });

  it("lets exactly one of two raises through when each fits alone but not both", async () => {
    // 16 + 8 of 32: LLM to 24 fits, Vision to 16 fits, both would make 40.
    const [lead, admin] = [await caller("lead@rebound.local"), await caller("admin@rebound.local")];
    const [llm, vision] = [await gpuQuota(LLM, 24), await gpuQuota("vision", 16)];
    const results = await Promise.all([
      outcome(lead.governance.quota.update(llm)),
      outcome(admin.governance.quota.update(vision)),
    ]);
    expect(results.filter((result) => result === "allowed")).toHaveLength(1);
    expect(results.find((result) => result !== "allowed")).toMatch(
      /^BAD_REQUEST: .*would over-commit the cluster/,
    );
    const total = ((await guaranteed(LLM)) ?? 0) + ((await guaranteed("vision")) ?? 0);
    expect(total).toBe(32);
    await admin.governance.quota.update(await gpuQuota(LLM, 16));
    await admin.governance.quota.update(await gpuQuota("vision", 8));
  });

  it("refuses a raise it cannot check when the cluster cannot be read; a lowering still saves", async () => {
    const down = createOperatorSource({
      baseUrl: "http://127.0.0.1:9",
      mode: "local",
      token: () => "x",
      timeoutMs: 2000,
    });
    const lead = (await stack.callerFor("lead@rebound.local", () => down)).caller;
    const before = await quotaRows();
    expect(await outcome(lead.governance.quota.update(await gpuQuota(LLM, 17)))).toMatch(
      /^SERVICE_UNAVAILABLE: llm-research: guaranteed nvidia.com\/gpu 17 cannot be checked against the cluster's capacity/,
    );
    expect(await quotaRows()).toBe(before);
    await lead.governance.quota.update(await gpuQuota(LLM, 15));
    expect(await guaranteed(LLM)).toBe(15);
  });

  it("saves an over-commit only when it is chosen, and the audit row says it was", async () => {
    const admin = await caller("admin@rebound.local");
    await admin.governance.quota.update(await gpuQuota(LLM, 40, { allowOvercommit: true }));
    expect(await guaranteed(LLM)).toBe(40);
    const audit = await db.auditLog.findFirst({
      where: { action: "quota.update", target: `team/${LLM}` },
      orderBy: { createdAt: "desc" },
    });
    expect(audit?.details).toMatchObject({
      before: { resources: expect.arrayContaining([expect.objectContaining({ guaranteed: 15 })]) },
      after: { resources: expect.arrayContaining([expect.objectContaining({ guaranteed: 40 })]) },
      allowOvercommit: true,
    });
    // Already over: a team may still lower its guarantee, or change something else, without the choice.
    await admin.governance.quota.update(await gpuQuota(LLM, 30));
    expect(await guaranteed(LLM)).toBe(30);
  });
});
