import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import type { SessionUser } from "@/server/services/auth/sessions";
import { runJobAction } from "@/server/services/jobs/actions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";

/**
 * Issue 16, item 3: a Vision engineer injected a node fault on their own job; the node also held an LLM
 * Research pod, which was killed and replaced. A node fault reaches every team on the node, so only a
 * cluster admin may inject one: the engineer is refused and the other team's pod keeps running.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;
const llm = { namespace: "hyperpod-ns-llm-research", name: "adv-node-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "adv-node-vision" };

const user = (email: string): Promise<SessionUser> => stack.user(email);

const llmPids = () => operator.live(llm)?.pods.flatMap((pod) => pod.ranks.map((rank) => rank.pid)) ?? [];

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "adv_node_fault", nodes: 1, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running on the one node",
    // Each rank's process listed by its agent (the agent answers /start before it forks them).
    () => llmPids().filter((pid) => pid !== null).length === 1 && operator.live(vision)?.ranksRunning === 1,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("a node fault from a team's engineer", () => {
  it("is refused, naming why, and the other team's pod on the node keeps running", async () => {
    const node = operator.live(vision)?.pods[0]?.node;
    expect(node).toBeTruthy();
    expect(operator.live(llm)?.pods[0]?.node).toBe(node);
    const before = llmPids();
    const audits = await db.auditLog.count();
    await expect(
      runJobAction(db, source, {
        user: await user("vision@rebound.local"),
        ref: vision,
        input: { action: "inject-fault", kind: "node", rank: 0 },
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/only a cluster admin/) });
    // Nothing changed: same processes, no fault recorded for either job, nothing audited as done.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(llmPids()).toEqual(before);
    expect(operator.live(llm)?.ranksRunning).toBe(1);
    expect(await listRestartEvents(db, { namespace: llm.namespace, jobName: llm.name })).toEqual([]);
    expect(await listRestartEvents(db, { namespace: vision.namespace, jobName: vision.name })).toEqual([]);
    expect(await db.auditLog.count()).toBe(audits);
  });

  it("still lets the engineer inject a fault that stays inside their own job", async () => {
    await expect(
      runJobAction(db, source, {
        user: await user("vision@rebound.local"),
        ref: vision,
        input: { action: "inject-fault", kind: "crash", rank: 0 },
      }),
    ).resolves.toBeUndefined();
    await operator.waitFor(
      "the crash recorded on the Vision job only",
      async () =>
        (await listRestartEvents(db, { namespace: vision.namespace, jobName: vision.name })).length > 0,
      30_000,
    );
    expect(await listRestartEvents(db, { namespace: llm.namespace, jobName: llm.name })).toEqual([]);
  });
});
