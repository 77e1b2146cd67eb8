import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { JOB_CRD_NAME, JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { KubernetesBackend } from "./backend";
import { createConsoleView, detectClusterMode } from "./console-view";
import { CRD_OWNER_ANNOTATION, LABEL_JOB } from "./objects";
import { type KubeEnv, kwokNode, PROXIED_ANSWER_MS, viaProxy, waitUntil } from "./testing/kube-env";
import { type ProxiedBackend, startProxiedBackend } from "./testing/proxied-backend";
import { startTcpProxy, type TcpProxy } from "./testing/tcp-proxy";

/**
 * Informers against a real apiserver whose connections a test proxy breaks (cut, or silently stalled), and
 * the console's read side in console-only mode: a job run by someone else's operator, read from caches.
 */
const NAMESPACE = "hyperpod-ns-vision";

let env: KubeEnv;
let proxy: TcpProxy;
let backend: KubernetesBackend;
let cluster: ProxiedBackend | undefined;

beforeAll(async () => {
  cluster = await startProxiedBackend({ namespaces: [NAMESPACE], stallMs: 1500 });
  ({ env, proxy, backend } = cluster);
}, 600_000);

afterAll(() => cluster?.stop(), 60_000);

const hasNode = (name: string) => async () => (await backend.listNodes()).some((node) => node.name === name);

describe("API connections", () => {
  it("are reused from one call to the next", async () => {
    const core = viaProxy(env.kubeConfig, proxy.port).makeApiClient(CoreV1Api);
    const before = proxy.accepted();
    for (let call = 0; call < 20; call += 1) await core.listNamespace();
    expect(proxy.accepted() - before).toBe(1);
  });

  it("give up a call on a reused connection that went silent, and the next call opens a new one", async () => {
    const server = new URL(env.cluster.server);
    const silent = await startTcpProxy({ host: server.hostname, port: Number(server.port) });
    try {
      const core = viaProxy(env.kubeConfig, silent.port).makeApiClient(CoreV1Api);
      await core.listNamespace();
      silent.stallAll();
      const startedAt = Date.now();
      await expect(core.listNamespace()).rejects.toThrow(/no answer from the API server/);
      const waitedMs = Date.now() - startedAt;
      console.log(`call on a silent reused connection failed after ${waitedMs} ms`);
      expect(waitedMs).toBeGreaterThanOrEqual(PROXIED_ANSWER_MS - 100);
      const before = silent.accepted();
      await core.listNamespace();
      expect(silent.accepted() - before).toBe(1);
    } finally {
      await silent.stop();
    }
  }, 30_000);
});

describe("informers", () => {
  it("see changes again after every connection is cut", async () => {
    const watches = backend.informers.nodes.stats.watches;
    expect(proxy.open()).toBeGreaterThan(0);
    proxy.cutAll();
    await env.core.createNode({ body: kwokNode("after-cut", 8) });
    await waitUntil("the node created after the cut", hasNode("after-cut"), 15_000);
    expect(backend.informers.nodes.stats.watches).toBeGreaterThan(watches);
  });

  it("replace a watch that went silent without closing", async () => {
    const stalls = backend.informers.nodes.stats.stalls;
    proxy.stallAll();
    await env.core.createNode({ body: kwokNode("after-stall", 8) });
    await waitUntil("the node created after the stall", hasNode("after-stall"), 15_000);
    expect(backend.informers.nodes.stats.stalls).toBeGreaterThan(stalls);
  });

  it("report a node's health label change as a node fault", async () => {
    await env.core.patchNode(
      {
        name: "kwok-a",
        body: { metadata: { labels: { "sagemaker.amazonaws.com/node-health-status": "Unschedulable" } } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const node = await waitUntil("kwok-a unhealthy", async () =>
      (await backend.listNodes()).find(
        (candidate) => candidate.name === "kwok-a" && candidate.health === "Unschedulable",
      ),
    );
    expect(node.changedAt).toBeGreaterThan(Date.now() - 15_000);
  });
});

describe("console-only mode (someone else's operator)", () => {
  it("lists jobs, their pods and nodes from the caches, without a request per read", async () => {
    // AWS's CRD carries no Rebound ownership annotation: the console must not act as the operator.
    const api = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const crd = await api.readCustomResourceDefinition({ name: JOB_CRD_NAME });
    expect(crd.metadata?.annotations?.[CRD_OWNER_ANNOTATION]).toBe("rebound");
    await api.patchCustomResourceDefinition(
      { name: JOB_CRD_NAME, body: { metadata: { annotations: { [CRD_OWNER_ANNOTATION]: null } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    expect(await detectClusterMode(env.kubeConfig)).toBe("console-only");

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const api2 = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL, namespace: NAMESPACE };
    const body = parse(
      demoJobYaml({ name: "aws-job", nodes: 1, ranks: 8, gpusPerPod: 8 }).replace(
        "hyperpod-ns-llm-research",
        NAMESPACE,
      ),
    );
    await custom.createNamespacedCustomObject({ ...api2, body });
    const status = {
      restartCount: 2,
      conditions: [
        { type: "Created", status: "True", lastTransitionTime: new Date().toISOString() },
        {
          type: "Running",
          status: "True",
          message: "The fault of reason NodeFault was remediated in 150000 milliseconds.",
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    };
    const stored = (await custom.getNamespacedCustomObject({ ...api2, name: "aws-job" })) as object;
    await custom.replaceNamespacedCustomObjectStatus({
      ...api2,
      name: "aws-job",
      body: { ...stored, status },
    });
    await env.core.createNamespacedPod({
      namespace: NAMESPACE,
      body: {
        metadata: { name: "aws-job-worker-0", labels: { [LABEL_JOB]: "aws-job" } },
        spec: {
          nodeName: "after-cut",
          containers: [
            { name: "trainer", image: "trainer:latest", resources: { limits: { "nvidia.com/gpu": "8" } } },
          ],
        },
      },
    });

    const view = createConsoleView(backend, "console-only");
    // Up to the informers' longest backoff (30 s, jittered +20 %) after the cuts of the tests before, plus a relist.
    const job = await waitUntil(
      "the job and its pod in the cache",
      () => {
        const found = view.job({ namespace: NAMESPACE, name: "aws-job" });
        return found?.status === "Running" && found.pods.length === 1 ? found : null;
      },
      60_000,
    );
    expect(job).toMatchObject({
      restartCount: 2,
      nodes: 1,
      ranks: 8,
      gpus: 8,
      statusMessage: expect.stringContaining("NodeFault"),
    });
    const node = (await view.nodes()).find((candidate) => candidate.name === "after-cut");
    expect(node).toMatchObject({
      gpus: 8,
      gpusUsed: 8,
      jobs: [`${NAMESPACE}/aws-job`],
      // Console-only mode judges nodes as the operator does, for the cluster page's source and reason.
      verdict: { meaning: "healthy", action: "none", source: null },
    });

    const lists = backend.informers.jobs.stats.lists + backend.informers.pods.stats.lists;
    for (let read = 0; read < 50; read += 1) {
      view.jobs();
      await view.nodes();
    }
    expect(backend.informers.jobs.stats.lists + backend.informers.pods.stats.lists).toBe(lists);
  }, 120_000);
});
