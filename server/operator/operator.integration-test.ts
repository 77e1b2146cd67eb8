import { existsSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { createDb } from "@/server/db/client";
import { listPendingRestartEvents, listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { runJobAction } from "./api/actions";
import { injectFault } from "./api/faults";
import { demoJobYaml } from "./testing/jobs";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * A real multi-process local job (2 virtual nodes × 4 ranks: 2 agents, 8 trainer processes) through every
 * fault kind: the right action, back to Running with every rank, counters and restart timeline right,
 * nothing orphaned.
 */
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_operator");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 3,
    gpusPerNode: 4,
    config: { stopTimeoutSeconds: 5 },
  });
}, 120_000);

afterAll(async () => {
  const seen = operator?.seenPids().length ?? 0;
  // Every restart of the suite is over before the operator stops, so none of its rows may stay pending.
  const quiet = await operator
    ?.waitFor("no restart in flight", () => operator.deps.live.list().every((job) => !job.recovery), 20_000)
    .then(
      () => true,
      () => false,
    );
  await operator?.stop();
  const db = database ? createDb(database.url) : null;
  const pending = db ? await listPendingRestartEvents(db).finally(() => db.$disconnect()) : [];
  await database?.drop();
  expect(seen).toBeGreaterThan(0);
  expect(operator?.alivePids()).toEqual([]);
  expect(quiet).toBe(true);
  expect(pending).toEqual([]);
}, 60_000);

const allRanksRunning = (ref: JobRef, ranks: number) => () => {
  const live = operator.live(ref);
  return live?.phase === "Running" && live.ranksRunning === ranks && live.recovery === null ? live : null;
};

/** Every rank has printed a step line since its (re)start: the JobHang rule is HEALTHY everywhere. */
const allRanksStepping = (ref: JobRef, ranks: number) => () => {
  const live = allRanksRunning(ref, ranks)();
  const ruleStates = live?.pods.flatMap((pod) => pod.ranks.map((rank) => rank.rule_states.JobHang)) ?? [];
  return ruleStates.length === ranks && ruleStates.every((state) => state === "HEALTHY") ? live : null;
};

async function nextEvent(ref: JobRef, count: number) {
  return operator.waitFor(`restart event #${count} recovered`, async () => {
    const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
    const event = events[count - 1];
    return event && event.outcome !== "pending" ? event : null;
  });
}

function rankPids(ref: JobRef): number[] {
  return (operator.live(ref)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => rank.pid ?? -1));
}

describe("local job recovery, end to end", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-faults" };

  it("starts every rank of a 2 × 4 job", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 2, ranks: 4 }));
    const live = await operator.waitFor("8 running ranks", allRanksRunning(ref, 8), 60_000);
    expect(live.pods.map((pod) => pod.node).sort()).toHaveLength(2);
    expect(new Set(live.pods.map((pod) => pod.node)).size).toBe(2);
    const job = await operator.backend.getJob(ref);
    expect(job?.status.conditions?.map((c) => c.type)).toEqual(
      expect.arrayContaining(["Created", "PodsRunning", "Running"]),
    );
  });

  it("runs agents below the operator, and their ranks at their agent's priority", () => {
    const agents = operator.backend.pods
      .list(ref)
      .map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name) ?? -1);
    expect(agents).toHaveLength(2);
    for (const pid of agents) expect(getPriority(pid)).toBe(5);
    // Not lowered further: the kernel takes one autogroup write per 100 ms machine-wide from an unprivileged
    // agent, so only some of a node's workers were lowered (server/cluster/local/agent-command.ts).
    for (const pid of rankPids(ref)) expect(getPriority(pid)).toBe(5);
    if (existsSync("/proc/self/autogroup")) {
      for (const pid of agents) expect(readFileSync(`/proc/${pid}/autogroup`, "utf8")).toMatch(/ nice 5$/m);
    }
  });

  it("restarts processes in place after a crash", async () => {
    const before = rankPids(ref);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 5 },
    });
    const event = await nextEvent(ref, 1);
    expect(event).toMatchObject({
      faultReason: "WorkerCrash",
      action: "PLR",
      outcome: "recovered",
      pods: ["it-faults-workers-1"],
    });
    // The record names the rank that crashed, not every rank of its pod (issue 17 item 4).
    expect(event.ranks).toEqual([5]);
    expect(event.detectedAt.getTime() - event.faultAt.getTime()).toBeLessThan(2000);
    const live = await operator.waitFor("ranks back", allRanksRunning(ref, 8));
    const after = rankPids(ref);
    expect(after.filter((pid) => before.includes(pid))).toEqual([]);
    expect(live.pods.every((pod) => pod.ranks.every((rank) => rank.restarts >= 1))).toBe(true);
    const status = (await operator.backend.getJob(ref))?.status;
    expect(status).toMatchObject({
      restartCount: 1,
      restartStatus: { restartCount: 1, fullJobRestartCount: 0 },
      latestFaultyPodInstanceList: { restartType: "PLR", faultyPodList: ["it-faults-workers-1"] },
    });
    expect(status?.conditions?.find((c) => c.type === "Running")?.message).toMatch(
      /^The fault of reason WorkerCrash was remediated in \d+ milliseconds\.$/,
    );
  });

  it("detects a hang through the log rule and restarts in place", async () => {
    // A rule with only a recurring frequency starts counting at its first match
    // (docs/hyperpod-compatibility.md, "Log-rule evaluation"). As hyperpodrun, the agent faults on local
    // rank 0's rules only: global rank 0 is pod 0's local rank 0.
    await operator.waitFor("ranks stepping", allRanksStepping(ref, 8));
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "hang", rank: 0 },
    });
    const event = await nextEvent(ref, 2);
    expect(event).toMatchObject({
      faultReason: "LogHang_JobHang",
      action: "PLR",
      outcome: "recovered",
      pods: ["it-faults-workers-0"],
    });
    await operator.waitFor("ranks back", allRanksRunning(ref, 8));
  });

  it("faults on a NaN loss line (faultOnMatch) and restarts in place", async () => {
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "nan", rank: 4 }, // local rank 0 of pod 1: the rank whose rules fault the job
    });
    const event = await nextEvent(ref, 3);
    expect(event).toMatchObject({ faultReason: "LogFault_LossNaN", action: "PLR", outcome: "recovered" });
    await operator.waitFor("ranks back", allRanksRunning(ref, 8));
  });

  it("replaces only the pod of a failed node, onto a healthy node", async () => {
    const before = operator.live(ref);
    const failedPod = before?.pods.find((pod) => pod.groupRank === 1);
    const otherPod = before?.pods.find((pod) => pod.groupRank === 0);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "node", rank: 4 },
    });
    const event = await nextEvent(ref, 4);
    expect(event).toMatchObject({
      faultReason: "NodeFault",
      action: "POD_REPLACEMENT",
      outcome: "recovered",
      node: failedPod?.node,
    });
    const live = await operator.waitFor("ranks back", allRanksRunning(ref, 8));
    const moved = live.pods.find((pod) => pod.groupRank === 1);
    expect(moved?.node).not.toBe(failedPod?.node);
    expect(live.pods.find((pod) => pod.groupRank === 0)?.node).toBe(otherPod?.node);
    const status = (await operator.backend.getJob(ref))?.status;
    expect(status).toMatchObject({
      restartCount: 4,
      restartStatus: { restartCount: 4, fullJobRestartCount: 0 },
    });
  });

  it("deletes the job and all its processes", async () => {
    const pids = [
      ...rankPids(ref),
      ...operator.backend.pods
        .list(ref)
        .map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name) ?? -1),
    ];
    await operator.backend.requestDeletion(ref);
    await operator.waitFor("job gone", async () => (await operator.backend.getJob(ref)) === null);
    expect(operator.backend.pods.list(ref)).toEqual([]);
    await operator.waitFor("processes gone", () => pids.every((pid) => !isAlive(pid)), 10_000);
  });
});

describe("escalation to a full job restart", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-escalate" };

  it("does a JLR once numRestartBeforeFullJobRestart is used up", async () => {
    await operator.submit(
      demoJobYaml({ name: ref.name, nodes: 2, ranks: 2, gpusPerPod: 2, restartsBeforeFullRestart: 1 }),
    );
    await operator.waitFor("4 running ranks", allRanksRunning(ref, 4), 60_000);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 0 },
    });
    expect(await nextEvent(ref, 1)).toMatchObject({ action: "PLR", outcome: "recovered" });
    await operator.waitFor("ranks back", allRanksRunning(ref, 4));
    const agentsBefore = operator.backend.pods
      .list(ref)
      .map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name));
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 3 },
    });
    expect(await nextEvent(ref, 2)).toMatchObject({ action: "JLR", outcome: "recovered" });
    await operator.waitFor("ranks back", allRanksRunning(ref, 4));
    const agentsAfter = operator.backend.pods
      .list(ref)
      .map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name));
    expect(agentsAfter.filter((pid) => agentsBefore.includes(pid))).toEqual([]);
    expect((await operator.backend.getJob(ref))?.status).toMatchObject({
      restartStatus: { restartCount: 0, fullJobRestartCount: 1 },
      latestFaultyPodInstanceList: { restartType: "JLR" },
    });
  });
});

describe("actions people ask for", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-actions" };

  it("restarts in place on request, recorded as ManualRestart and not counted as a fault", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 2, ranks: 2, gpusPerPod: 2 }));
    await operator.waitFor("4 running ranks", allRanksRunning(ref, 4), 60_000);
    const before = rankPids(ref);
    await runJobAction(operator.deps, ref, { action: "restart-rank", rank: 3, by: "engineer@rebound.local" });
    const event = await nextEvent(ref, 1);
    expect(event).toMatchObject({
      faultReason: "ManualRestart",
      action: "PLR",
      outcome: "recovered",
      ranks: [3],
    });
    expect(event.message).toMatch(/^The fault of reason ManualRestart was remediated in \d+ milliseconds\.$/);
    const events = await operator.backend.listEvents(ref);
    expect(events.find((e) => e.reason === "ManualRestart")?.message).toBe(
      "restart-rank requested by engineer@rebound.local",
    );
    await operator.waitFor("ranks back", allRanksRunning(ref, 4));
    expect(rankPids(ref).filter((pid) => before.includes(pid))).toEqual([]);
    expect((await operator.backend.getJob(ref))?.status.restartCount ?? 0).toBe(0);
  });

  it("replaces one pod on request and keeps the other", async () => {
    const agents = () =>
      operator.backend.pods.list(ref).map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name));
    const [first, second] = agents();
    await runJobAction(operator.deps, ref, {
      action: "restart-pod",
      pod: `${ref.name}-workers-1`,
      by: "lead@rebound.local",
    });
    expect(await nextEvent(ref, 2)).toMatchObject({
      faultReason: "ManualRestart",
      action: "POD_REPLACEMENT",
      outcome: "recovered",
    });
    await operator.waitFor("ranks back", allRanksRunning(ref, 4));
    const [firstAfter, secondAfter] = agents();
    expect(firstAfter).toBe(first);
    expect(secondAfter).not.toBe(second);
  });

  it("refuses a rank or pod the job does not have, and changes nothing", async () => {
    await expect(
      runJobAction(operator.deps, ref, { action: "restart-rank", rank: 9, by: "x" }),
    ).rejects.toThrow("rank: the job has ranks 0-3, got 9");
    await expect(
      runJobAction(operator.deps, ref, { action: "restart-pod", pod: "nope", by: "x" }),
    ).rejects.toThrow("pod: nope is not one of the job's pods");
    expect(operator.deps.requests.take(`${ref.namespace}/${ref.name}`)).toBeUndefined();
  });

  it("suspends (pods deleted) and resumes (running again)", async () => {
    await runJobAction(operator.deps, ref, { action: "suspend", by: "x" });
    await operator.waitFor(
      "suspended without pods",
      () => operator.live(ref)?.phase === "Suspended" && operator.backend.pods.list(ref).length === 0,
    );
    await runJobAction(operator.deps, ref, { action: "resume", by: "x" });
    await operator.waitFor("running again", allRanksRunning(ref, 4), 60_000);
    await operator.backend.requestDeletion(ref);
    await operator.waitFor("job gone", async () => (await operator.backend.getJob(ref)) === null);
  });
});
