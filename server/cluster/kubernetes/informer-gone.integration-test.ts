import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createKubernetesBackend, type KubernetesBackend } from "./backend";
import { type KubeEnv, kwokNode, setNodeHealth, startKubeEnv, viaProxy, waitUntil } from "./testing/kube-env";
import { startTcpProxy, type TcpProxy } from "./testing/tcp-proxy";

/**
 * 410 Gone against a real apiserver: with the watch cache off, watches are served from etcd, and with
 * compaction every second a resourceVersion is soon too old to watch from. The informers lose the API
 * server (the proxy refuses connections) while nodes change and etcd compacts past what they saw; when
 * the server is back their watch is refused with 410, and they must list again to see what changed.
 */
const log = createLogger({ service: "informer-gone-it" });
const quiet = { ...log, info: () => undefined, warn: () => undefined };

let env: KubeEnv;
let proxy: TcpProxy;
let backend: KubernetesBackend;

beforeAll(async () => {
  env = await startKubeEnv({
    nodes: ["kwok-a"],
    gpusPerNode: 8,
    namespaces: [],
    apiserverArgs: ["--watch-cache=false", "--etcd-compaction-interval=1s"],
  });
  const server = new URL(env.cluster.server);
  proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port) });
  backend = await createKubernetesBackend({
    kubeConfig: viaProxy(env.kubeConfig, proxy.port),
    log: quiet,
    mode: "console",
    informers: { watchTimeoutSeconds: 300, stallMs: 60_000 },
  });
  await backend.start();
}, 600_000);

afterAll(async () => {
  await backend?.stop();
  await proxy?.stop();
  await env?.stop();
}, 60_000);

it("list again after a 410 Gone and see what changed meanwhile", async () => {
  const { stats } = backend.informers.nodes;
  const before = { lists: stats.lists, gone: stats.gone };
  proxy.refuse(true);
  proxy.cutAll();
  // Changes the informer cannot see, then time for etcd to compact past its resourceVersion.
  await env.core.createNode({ body: kwokNode("while-away", 8) });
  await setNodeHealth(env.core, "kwok-a", "UnschedulablePendingReboot");
  await env.core.deleteNode({ name: "while-away" });
  await env.core.createNode({ body: kwokNode("while-away-2", 8) });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  proxy.refuse(false);
  await waitUntil(
    "the informer to see the node created while it was away",
    async () => (await backend.listNodes()).some((node) => node.name === "while-away-2"),
    30_000,
  );
  const nodes = await backend.listNodes();
  expect(nodes.map((node) => node.name).sort()).toEqual(["kwok-a", "while-away-2"]);
  expect(nodes.find((node) => node.name === "kwok-a")?.health).toBe("UnschedulablePendingReboot");
  expect(stats.gone).toBeGreaterThan(before.gone);
  expect(stats.lists).toBeGreaterThan(before.lists);
});
