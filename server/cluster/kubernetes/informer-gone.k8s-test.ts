import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubernetesBackend } from "./backend";
import { type KubeEnv, kwokNode, setNodeHealth, waitUntil } from "./testing/kube-env";
import { type ProxiedBackend, startProxiedBackend } from "./testing/proxied-backend";
import type { TcpProxy } from "./testing/tcp-proxy";

/**
 * 410 Gone against a real apiserver: with the watch cache off, watches are served from etcd, and with
 * compaction every second a resourceVersion is soon too old to watch from. The informers lose the API
 * server (the proxy refuses connections) while nodes change and etcd compacts past what they saw; when
 * the server is back their watch is refused with 410, and they must list again to see what changed.
 */
let env: KubeEnv;
let proxy: TcpProxy;
let backend: KubernetesBackend;
let cluster: ProxiedBackend | undefined;

beforeAll(async () => {
  cluster = await startProxiedBackend({
    namespaces: [],
    stallMs: 60_000,
    apiserverArgs: ["--watch-cache=false", "--etcd-compaction-interval=1s"],
  });
  ({ env, proxy, backend } = cluster);
}, 600_000);

afterAll(() => cluster?.stop(), 60_000);

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
