import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  loadYaml,
  type V1CustomResourceDefinition,
  type V1Node,
} from "@kubernetes/client-node";
import {
  buildKubeTestCluster,
  type KubeTestCluster,
  type KubeTestToken,
  startKubeTestCluster,
} from "@/e2e/kube/cluster";
import { JOB_CRD_NAME } from "@/server/domain/job-spec/job-spec.schema";
import { loadKubeConfig, reuseConnections } from "../config";
import { GPU_RESOURCE, LABEL_NODE_HEALTH } from "../objects";

/**
 * The Kubernetes test environment for integration tests and bench:k8s: a real kube-apiserver + etcd + KWOK
 * (e2e/kube), our CRD from deploy/ installed, the namespaces, and KWOK nodes with GPUs.
 */
export type KubeEnv = {
  cluster: KubeTestCluster;
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  stop(): Promise<void>;
};

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");
export const CRD_FILE = path.join(REPO_ROOT, "deploy/crd", `${JOB_CRD_NAME}.yaml`);

/** Through client-node's typed loader: a plain object would lose the `x-kubernetes-*` keys on the way out. */
export const readCrd = (): V1CustomResourceDefinition => loadYaml(readFileSync(CRD_FILE, "utf8"));

export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 30_000,
  /** On timeout, what the state was (added to the error, so a failure in CI's summary says why). */
  explain?: () => Promise<string> | string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const state = explain
    ? await Promise.resolve(explain()).catch((error: unknown) => `(unexplained: ${error})`)
    : "";
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ""}${state ? `; ${state}` : ""}`,
  );
}

export async function installCrd(kubeConfig: KubeConfig, crd = readCrd()): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: crd });
  await waitUntil(`CRD ${crd.metadata?.name} to be established`, async () => {
    const current = await api.readCustomResourceDefinition({ name: crd.metadata?.name ?? "" });
    return current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
}

/**
 * How long a call on a reused connection through the test proxy waits for an answer: short, because the
 * proxy's `stallAll` leaves pooled connections silent and the tests wait for the caches to recover.
 */
export const PROXIED_ANSWER_MS = 8000;

/** The same credentials, through another address (a test proxy on this port). */
export function viaProxy(kubeConfig: KubeConfig, port: number): KubeConfig {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("no cluster");
  const copy = reuseConnections(new KubeConfig(), { answerMs: PROXIED_ANSWER_MS });
  copy.loadFromOptions({
    clusters: [{ ...cluster, server: `https://127.0.0.1:${port}` }],
    users: kubeConfig.getUsers(),
    contexts: kubeConfig.getContexts(),
    currentContext: kubeConfig.getCurrentContext(),
  });
  return copy;
}

export function kwokNode(name: string, gpus: number): V1Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: { type: "kwok", "kubernetes.io/hostname": name, [LABEL_NODE_HEALTH]: "Schedulable" },
    },
    status: {
      allocatable: { cpu: "96", memory: "1Ti", pods: "110", [GPU_RESOURCE]: String(gpus) },
      capacity: { cpu: "96", memory: "1Ti", pods: "110", [GPU_RESOURCE]: String(gpus) },
    },
  };
}

/** Creates KWOK nodes and waits until KWOK reports them Ready. */
export async function createKwokNodes(core: CoreV1Api, names: string[], gpus: number): Promise<void> {
  for (const name of names) await core.createNode({ body: kwokNode(name, gpus) });
  await waitUntil(
    `${names.length} KWOK nodes to be Ready`,
    async () => {
      const { items } = await core.listNode({ labelSelector: "type=kwok" });
      const ready = items.filter((node) =>
        node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
      return names.every((name) => ready.some((node) => node.metadata?.name === name));
    },
    60_000,
  );
}

export async function setNodeHealth(core: CoreV1Api, node: string, health: string): Promise<void> {
  const { PatchStrategy, setHeaderOptions } = await import("@kubernetes/client-node");
  await core.patchNode(
    { name: node, body: { metadata: { labels: { [LABEL_NODE_HEALTH]: health } } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

export async function startKubeEnv(opts: {
  nodes: string[];
  gpusPerNode: number;
  namespaces: string[];
  /** Install our CRD (default true). */
  crd?: boolean;
  /** Extra kube-apiserver flags. */
  apiserverArgs?: string[];
  /** Extra static-token users (RBAC tests bind them to roles). */
  extraTokens?: KubeTestToken[];
  log?: (line: string) => void;
}): Promise<KubeEnv> {
  await buildKubeTestCluster({ log: opts.log });
  const dataDir = await mkdtemp(path.join(tmpdir(), "rebound-kube-"));
  const cluster = await startKubeTestCluster({
    dataDir,
    log: opts.log,
    apiserverArgs: opts.apiserverArgs,
    extraTokens: opts.extraTokens,
  });
  try {
    const kubeConfig = loadKubeConfig(cluster.kubeconfigPath);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    if (opts.crd !== false) await installCrd(kubeConfig);
    for (const name of opts.namespaces) await core.createNamespace({ body: { metadata: { name } } });
    await createKwokNodes(core, opts.nodes, opts.gpusPerNode);
    return {
      cluster,
      kubeConfig,
      core,
      async stop() {
        await cluster.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
