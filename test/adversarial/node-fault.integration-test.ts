import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { type SessionUser, signIn } from "@/server/services/auth/sessions";
import { runJobAction } from "@/server/services/jobs/actions";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { listRestartEvents } from "@/server/services/restart-events/queries";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 3: a Vision engineer injected a node fault on their own job; the node also held an LLM
 * Research pod, which was killed and replaced. A node fault reaches every team on the node, so only a
 * cluster admin may inject one: the engineer is refused and the other team's pod keeps running.
 */
const TOKEN = "node-fault-test-token";
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let operator: LocalOperator;
let server: Server;
let source: ClusterSource;
const llm = { namespace: "hyperpod-ns-llm-research", name: "adv-node-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "adv-node-vision" };

async function user(email: string): Promise<SessionUser> {
  const result = await signIn(db, { email, password: "rebound-demo" });
  if (!result.ok) throw new Error(result.reason);
  return result.user;
}

const llmPids = () => operator.live(llm)?.pods.flatMap((pod) => pod.ranks.map((rank) => rank.pid)) ?? [];

beforeAll(async () => {
  database = await createTestDatabase("adv_node_fault");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  // One node with room for both jobs: they share it.
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 2 });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  source = createOperatorSource({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: "local",
    token: () => TOKEN,
  });
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running on the one node",
    () => operator.live(llm)?.ranksRunning === 1 && operator.live(vision)?.ranksRunning === 1,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await operator?.stop();
  await db?.$disconnect();
  await database?.drop();
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
