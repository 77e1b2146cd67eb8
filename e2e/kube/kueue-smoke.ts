/**
 * Smoke test of Kueue in the Kubernetes test environment: `npx tsx e2e/kube/kueue-smoke.ts [--verbose]`.
 * Builds (when needed) and starts the cluster and Kueue, creates a ResourceFlavor, a ClusterQueue, a LocalQueue
 * and a Workload, and waits until Kueue admits it. Prints how long each step took.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { buildKubeTestCluster, startKubeTestCluster } from "./cluster";
import { buildKueue, KUEUE_VERSION } from "./kueue";
import { type KubeTarget, kubeRequest } from "./kueue-http";
import { startKueue } from "./kueue-process";

const DATA_DIR = path.resolve(import.meta.dirname, "../../.data/kube/kueue-smoke");
const VERBOSE = process.argv.includes("--verbose");
const log = VERBOSE ? (line: string) => console.error(line) : () => {};
const API = "/apis/kueue.x-k8s.io/v1beta1";

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  console.log(`${name.padEnd(40)} ${(performance.now() - started).toFixed(0).padStart(7)} ms`);
  return result;
}

async function create(target: KubeTarget, urlPath: string, body: Record<string, unknown>): Promise<void> {
  const kinds: Record<string, string> = {
    resourceflavors: "ResourceFlavor",
    clusterqueues: "ClusterQueue",
    localqueues: "LocalQueue",
    workloads: "Workload",
  };
  const kind = kinds[urlPath.slice(urlPath.lastIndexOf("/") + 1)];
  const object = { apiVersion: "kueue.x-k8s.io/v1beta1", kind, ...body };
  const res = await kubeRequest(target, { method: "POST", path: urlPath, body: object });
  if (res.status !== 201) throw new Error(`POST ${urlPath}: ${res.status} ${res.text}`);
}

async function admitted(target: KubeTarget): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const res = await kubeRequest(target, {
      method: "GET",
      path: `${API}/namespaces/default/workloads/smoke`,
    });
    const conditions = (res.json as { status?: { conditions?: Array<{ type: string; status: string }> } })
      ?.status?.conditions;
    if (conditions?.some((c) => c.type === "Admitted" && c.status === "True")) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the Workload was not admitted within 30 s");
}

async function main(): Promise<void> {
  await step("build rebound-kube", () => buildKubeTestCluster({ log }));
  await step(`build kueue ${KUEUE_VERSION}`, () => buildKueue({ log }));
  await rm(DATA_DIR, { recursive: true, force: true });
  const cluster = await step("start the cluster", () => startKubeTestCluster({ dataDir: DATA_DIR, log }));
  try {
    const kueue = await step("install CRDs and start kueue", () => startKueue({ cluster, log }));
    try {
      await step("create flavor, queues, workload", async () => {
        await create(cluster, `${API}/resourceflavors`, { metadata: { name: "default" } });
        const resources = [{ name: "cpu", nominalQuota: "4" }];
        await create(cluster, `${API}/clusterqueues`, {
          metadata: { name: "cq" },
          spec: {
            namespaceSelector: {},
            resourceGroups: [{ coveredResources: ["cpu"], flavors: [{ name: "default", resources }] }],
          },
        });
        await create(cluster, `${API}/namespaces/default/localqueues`, {
          metadata: { name: "lq" },
          spec: { clusterQueue: "cq" },
        });
        const container = { name: "c", image: "none", resources: { requests: { cpu: "1" } } };
        await create(cluster, `${API}/namespaces/default/workloads`, {
          metadata: { name: "smoke" },
          spec: {
            queueName: "lq",
            podSets: [{ name: "main", count: 2, template: { spec: { containers: [container] } } }],
          },
        });
      });
      await step("kueue admits the workload", () => admitted(cluster));
    } finally {
      await kueue.stop();
    }
  } finally {
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
