import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { teamCapacities } from "@/server/domain/governance";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import {
  HEARTBEAT_MS,
  recordCapacity,
  type SamplerMemory,
} from "@/server/services/governance/capacity-history";
import type { QuotaUpdateInput } from "@/server/services/governance/governance.schema";
import { stopCapacitySamplers } from "@/server/services/governance/sampler";
import { buildGovernanceSnapshot } from "@/server/services/governance/snapshot";

/**
 * The governance router over live jobs on a real local operator with its own admission (task governance on
 * the local back end): 4 GPUs; Vision (guaranteed 1) runs a 2-GPU job borrowing one, LLM Research (guaranteed
 * 2) runs a 2-GPU job and queues a third GPU. The queue, "why pending", the what-if of a quota change and the
 * overview are read from it.
 */
let stack: ConsoleStack;
let operator: LocalOperator;
const LLM = "llm-research";
const v1 = { namespace: "hyperpod-ns-vision", name: "it-gov-v1" };
const l1 = { namespace: "hyperpod-ns-llm-research", name: "it-gov-l1" };
const l2 = { namespace: "hyperpod-ns-llm-research", name: "it-gov-l2" };
const key = (ref: { namespace: string; name: string }) => `${ref.namespace}/${ref.name}`;

const caller = async (email: string) => (await stack.callerFor(email)).caller;
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );

/** A demo job labelled with a priority class (`kueue.x-k8s.io/priority-class: <class>-priority`). */
function job(ref: { namespace: string; name: string }, gpus: number, priorityClass = "training"): string {
  const yaml = demoJobYaml({
    name: ref.name,
    namespace: ref.namespace,
    nodes: 1,
    ranks: 1,
    gpusPerPod: gpus,
  });
  return yaml.replace(
    `  namespace: ${ref.namespace}\n`,
    `  namespace: ${ref.namespace}\n  labels:\n    kueue.x-k8s.io/priority-class: ${priorityClass}-priority\n`,
  );
}

function gpuQuota(team: string, version: number, gpus: number): QuotaUpdateInput {
  return {
    team,
    version,
    activation: "Enabled",
    strategy: "LendAndBorrow",
    borrowLimitPercent: 100,
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 0,
    resources: [{ resource: "nvidia.com/gpu", guaranteed: gpus }],
  };
}

async function setGpus(team: string, gpus: number) {
  const admin = await caller("admin@rebound.local");
  const { version } = await admin.governance.quota.get({ team });
  return admin.governance.quota.update(gpuQuota(team, version, gpus));
}

const stateOf = (ref: { namespace: string; name: string }) => operator.live(ref)?.admission?.state;

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_governance_live", nodes: 2, gpusPerNode: 2 });
  operator = stack.operator;
  await setGpus(LLM, 2);
  await setGpus("vision", 1);
  // The operator reloads the configuration every 2 s: wait for it before submitting.
  await operator.waitFor("quotas loaded", async () => {
    const snap = await operator.admission?.snapshot(Date.now());
    const guaranteed = snap?.config.teams.find((team) => team.team === "vision")?.guaranteed;
    return guaranteed?.default?.["nvidia.com/gpu"] === 1;
  });
  await operator.submit(job(v1, 2));
  await operator.waitFor("vision's job admitted", () => stateOf(v1) === "Admitted", 60_000);
  await operator.submit(job(l1, 2));
  await operator.waitFor("llm-research's job admitted", () => stateOf(l1) === "Admitted", 60_000);
  await operator.submit(job(l2, 1));
  await operator.waitFor("the third GPU pending", () => stateOf(l2) === "Pending", 60_000);
}, 180_000);

afterAll(async () => {
  stopCapacitySamplers();
  await stack?.stop();
}, 60_000);

describe("governance over live jobs", () => {
  it("lists the team's queue: the pending job with its position and priority, the admitted one", async () => {
    const queue = await (await caller("engineer@rebound.local")).governance.queue({ team: LLM });
    expect(queue.pending.map((row) => [row.key, row.position, row.priority, row.priorityClass])).toEqual([
      [key(l2), 1, 70, "training"],
    ]);
    expect(queue.pending[0]?.reason).toBe("InsufficientQuota");
    expect(queue.admitted.map((row) => row.key)).toEqual([key(l1)]);
    expect(await codeOf((await caller("vision@rebound.local")).governance.queue({ team: LLM }))).toBe(
      "FORBIDDEN",
    );
  });

  it("says why the job is pending, in numbers, to its team only", async () => {
    const answer = await (await caller("engineer@rebound.local")).governance.whyPending(l2);
    expect(answer).toMatchObject({ key: key(l2), team: LLM, position: 1, reason: "InsufficientQuota" });
    expect(answer?.shortfall).toEqual([
      { flavor: "default", resource: "nvidia.com/gpu", need: 1, available: 0, missing: 1 },
    ]);
    expect(answer?.text).toContain(key(l2));
    expect(answer?.wouldRun.length).toBeGreaterThan(0);
    expect(await (await caller("engineer@rebound.local")).governance.whyPending(l1)).toBeNull();
    expect(await codeOf((await caller("vision@rebound.local")).governance.whyPending(l2))).toBe("NOT_FOUND");
  });

  it("shows capacity now: Vision borrows one GPU, LLM Research uses its guarantee", async () => {
    const overview = await (await caller("lead@rebound.local")).governance.overview();
    const gpuOf = (team: string) =>
      overview.teams
        .find((row) => row.team === team)
        ?.capacity.find((row) => row.resource === "nvidia.com/gpu");
    expect(gpuOf("vision")).toMatchObject({ guaranteed: 1, used: 2, borrowed: 1 });
    expect(gpuOf(LLM)).toMatchObject({ guaranteed: 2, used: 2, borrowed: 0 });
    expect(overview.capacity).toEqual({ default: { "nvidia.com/gpu": 4 } });
    expect(overview.teams.find((row) => row.team === LLM)).toMatchObject({
      canEditQuota: true,
      canReadQueue: true,
      jobs: { pending: 1, admitted: 1, preempted: 0 },
    });
    expect(overview.teams.find((row) => row.team === "vision")?.canEditQuota).toBe(false);
  });

  it("refuses removing a priority class that live jobs still use, naming them", async () => {
    const admin = await caller("admin@rebound.local");
    const current = await admin.governance.scheduler.get();
    expect(current.priorityClasses.find((entry) => entry.name === "training")?.jobs).toBe(3);
    const error = await admin.governance.scheduler
      .update({
        version: current.version,
        taskRanking: current.taskRanking,
        fairShare: current.fairShare,
        idleResourceSharing: current.idleResourceSharing,
        priorityClasses: [{ name: "inference", weight: 90 }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toMatch(
      /^priorityClasses: priority class training is still used by 3 jobs \(.*it-gov-l1.*\): keep it until they finish$/,
    );
    expect((await admin.governance.scheduler.get()).version).toBe(current.version);
  });

  it("records capacity over time when it changes, and answers it per team", async () => {
    const { db } = stack;
    // The console's sampler, started by the first governance call, has written samples already.
    expect(await db.capacitySample.count({ where: { team: "vision" } })).toBeGreaterThan(0);
    const now = Date.now();
    const { snapshot } = await buildGovernanceSnapshot({ db, source: stack.source, now });
    const capacities = teamCapacities(snapshot);
    const memory: SamplerMemory = new Map();
    expect(await recordCapacity(db, { capacities, now, memory })).toBe(capacities.length);
    expect(await recordCapacity(db, { capacities, now: now + 30_000, memory })).toBe(0);
    expect(await recordCapacity(db, { capacities, now: now + HEARTBEAT_MS, memory })).toBe(capacities.length);
    await db.capacitySample.deleteMany({ where: { at: { gt: new Date(now) } } });

    const history = await (await caller("vision@rebound.local")).governance.capacityHistory({
      team: "vision",
      range: "1h",
    });
    expect(history).toMatchObject({ team: "vision", resource: "nvidia.com/gpu", intervalMs: 30_000 });
    expect(history.points.at(-1)).toMatchObject({ guaranteed: 1, used: 2, borrowed: 1, lent: 0 });
    expect(history.points.at(-1)?.at).toBeGreaterThanOrEqual(now);
    expect(
      await codeOf((await caller("vision@rebound.local")).governance.capacityHistory({ team: LLM })),
    ).toBe("FORBIDDEN");
  });

  // Last: it changes the quota, and the operator acts on it.
  it("predicts what raising the quota would do (reclaim from the borrower, admit the pending job), changing nothing until saved; then the operator preempts that job", async () => {
    const lead = await caller("lead@rebound.local");
    const { version } = await lead.governance.quota.get({ team: LLM });
    const predicted = await lead.governance.whatIf({ kind: "quota", quota: gpuQuota(LLM, version, 3) });
    expect(predicted.preempted).toEqual([
      expect.objectContaining({ key: key(v1), team: "vision", by: key(l2), reason: "InCohortReclamation" }),
    ]);
    expect(predicted.admitted.map((row) => [row.key, row.preempts])).toEqual([[key(l2), [key(v1)]]]);
    expect((await lead.governance.quota.get({ team: LLM })).version).toBe(version);
    expect([stateOf(v1), stateOf(l2)]).toEqual(["Admitted", "Pending"]);

    // Saved, the operator preempts what the what-if said, for the job it said.
    await lead.governance.quota.update(gpuQuota(LLM, version, 3));
    await operator.waitFor("vision's job preempted", () => stateOf(v1)?.startsWith("Preempt"), 30_000);
    expect(operator.live(v1)?.admission).toMatchObject({
      preemptedBy: key(l2),
      reason: "InCohortReclamation",
    });
    // The reclaimer runs, and the requeued borrower waits without taking the room back (no reclaim loop).
    await operator.waitFor("the reclaiming job admitted", () => stateOf(l2) === "Admitted", 60_000);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(stateOf(l2)).toBe("Admitted");
    expect(["Pending", "Preempted"]).toContain(stateOf(v1));
  }, 120_000);
});
