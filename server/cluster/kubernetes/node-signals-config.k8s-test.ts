import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { type NodeSignalFeed, startOperatorNodeSignals } from "@/server/operator/node-signals";
import { setCordonMovesPods } from "@/server/services/node-signals/mutations";
import { capturingLogger } from "@/test/capturing-log";
import { createTestDatabase } from "@/test/database";
import { createKubernetesBackend, type KubernetesBackend } from "./backend";
import { NODE_SIGNAL_CONFIG_MAP } from "./node-signal-config-map";
import { type KubeEnv, startKubeEnv, waitUntil } from "./testing/kube-env";

/**
 * The node-signal table reaching the kubernetes back end, on a real kube-apiserver + KWOK and real
 * Postgres, through the operator's own feed (server/operator/node-signals.ts): a cordoned node is judged by
 * the stored table (cordon: avoid, as Kubernetes), a row of the `rebound-node-signals` ConfigMap replaces
 * the stored row of its id and takes effect without a restart, a bad ConfigMap is logged naming its row and
 * field while the last good table stays, and a console change (Postgres) takes effect under no ConfigMap.
 */
const NAMESPACE = "rebound-system";
const NODES = ["kwok-node-0", "kwok-node-1"];
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let env: KubeEnv;
let backend: KubernetesBackend;
let feed: NodeSignalFeed;
const { log, logs } = capturingLogger();
let changes = 0;

const cordonRow = DEFAULT_NODE_SIGNALS.find((rule) => rule.id === "kubernetes-cordon");

async function cordonAction() {
  const node = (await backend.listNodes()).find((view) => view.name === NODES[0]);
  return node?.verdict?.action ?? null;
}

const seesCordonAs = (action: string) =>
  waitUntil(`the cordoned node judged ${action}`, async () => (await cordonAction()) === action, 10_000);

const configMap = (data: Record<string, string>) => ({
  metadata: { name: NODE_SIGNAL_CONFIG_MAP, namespace: NAMESPACE },
  data,
});

async function putConfigMap(data: Record<string, string>) {
  await env.core
    .deleteNamespacedConfigMap({ name: NODE_SIGNAL_CONFIG_MAP, namespace: NAMESPACE })
    .catch(() => undefined);
  await env.core.createNamespacedConfigMap({ namespace: NAMESPACE, body: configMap(data) });
}

beforeAll(async () => {
  database = await createTestDatabase("it_node_signals_config");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  env = await startKubeEnv({ nodes: NODES, gpusPerNode: 4, namespaces: [NAMESPACE] });
  await env.core.patchNode({ name: NODES[0] ?? "", body: { spec: { unschedulable: true } } }, MERGE);
  feed = await startOperatorNodeSignals({ db, kubeConfig: env.kubeConfig, namespace: NAMESPACE, log });
  feed.onChange(() => {
    changes += 1;
  });
  backend = await createKubernetesBackend({
    kubeConfig: env.kubeConfig,
    log,
    mode: "console",
    nodeSignals: feed,
  });
  await backend.start();
}, 600_000);

afterAll(async () => {
  feed?.stop();
  await backend?.stop();
  await env?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("node-signal table from Postgres and the ConfigMap (real apiserver)", () => {
  it("judges a cordon by the stored table: new pods avoid the node, running ones stay", async () => {
    await seesCordonAs("avoid");
    expect(feed.current()).toEqual(DEFAULT_NODE_SIGNALS);
  });

  it("a ConfigMap row replaces the stored row of its id, and takes effect without a restart", async () => {
    await putConfigMap({ "signals.yaml": stringify([{ ...cordonRow, action: "replace-now" }]) });
    await feed.refresh();
    await seesCordonAs("replace-now");
    expect(changes).toBe(1);
    // Only that row changed.
    expect(feed.current().filter((rule) => rule.id !== "kubernetes-cordon")).toEqual(
      DEFAULT_NODE_SIGNALS.filter((rule) => rule.id !== "kubernetes-cordon"),
    );
  });

  it("a bad ConfigMap is logged naming its row and field, and the last good table stays", async () => {
    await putConfigMap({ "signals.yaml": stringify([{ ...cordonRow, action: "evict-everything" }]) });
    await feed.refresh();
    await feed.refresh();
    const errors = logs.filter((record) => record.msg.startsWith("node-signal ConfigMap is not valid"));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(
      new RegExp(
        `ConfigMap ${NAMESPACE}/${NODE_SIGNAL_CONFIG_MAP} signals.yaml: rules\\[\\d+\\] \\(kubernetes-cordon\\)\\.action: `,
      ),
    );
    expect(await cordonAction()).toBe("replace-now");
    expect(changes).toBe(1);
  });

  it("the console's table (Postgres) applies under no ConfigMap, and a ConfigMap row wins over it", async () => {
    await env.core.deleteNamespacedConfigMap({ name: NODE_SIGNAL_CONFIG_MAP, namespace: NAMESPACE });
    await feed.refresh();
    await seesCordonAs("avoid");
    const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@rebound.local" } });
    await setCordonMovesPods(db, { version: 1, movesPods: true, actorId: admin.id });
    // Picked up by the feed's own poll, not a refresh.
    await seesCordonAs("replace-now");
    await putConfigMap({ "signals.json": JSON.stringify([{ ...cordonRow, action: "avoid" }]) });
    await seesCordonAs("avoid");
  });
});
