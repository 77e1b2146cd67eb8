/**
 * Smoke test of the Kubernetes test environment: `npx tsx e2e/kube/smoke.ts`. Builds and starts the cluster,
 * then, as the admin over HTTPS (verifying the cluster's CA): reads /version, creates a KWOK node with 8 GPUs,
 * waits for it to be Ready, binds a pod to it, waits for Running with a pod IP, deletes the pod and waits for
 * it to be gone. Prints how long each step took.
 */
import { readFile, rm } from "node:fs/promises";
import { request } from "node:https";
import path from "node:path";
import { buildKubeTestCluster, type KubeTestCluster, startKubeTestCluster } from "./cluster";

const DATA_DIR = path.resolve(import.meta.dirname, "../../.data/kube/smoke");
const VERBOSE = process.argv.includes("--verbose");

type Api = (method: string, urlPath: string, body?: unknown) => Promise<{ status: number; json: unknown }>;

async function apiClient(cluster: KubeTestCluster): Promise<Api> {
  const ca = await readFile(cluster.caFile);
  return (method, urlPath, body) =>
    new Promise((resolve, reject) => {
      const req = request(
        new URL(urlPath, cluster.server),
        {
          method,
          ca,
          headers: { authorization: `Bearer ${cluster.adminToken}`, "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text || "null") }));
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  const ms = performance.now() - started;
  console.log(`${name.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms`);
  return result;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function expectStatus(res: { status: number; json: unknown }, ...ok: number[]): unknown {
  if (!ok.includes(res.status)) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json;
}

type Condition = { type: string; status: string };
type Status = { status?: { phase?: string; podIP?: string; conditions?: Condition[] } };

const node = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "kwok-gpu-0", annotations: { "kwok.x-k8s.io/node": "fake" }, labels: { type: "kwok" } },
  status: {
    capacity: { cpu: "96", memory: "1Ti", pods: "110", "nvidia.com/gpu": "8" },
    allocatable: { cpu: "96", memory: "1Ti", pods: "110", "nvidia.com/gpu": "8" },
  },
};

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "smoke", namespace: "default" },
  spec: {
    nodeName: "kwok-gpu-0",
    containers: [{ name: "main", image: "busybox", resources: { limits: { "nvidia.com/gpu": "1" } } }],
  },
};

async function exercise(api: Api): Promise<void> {
  const version = await step("GET /version", async () => expectStatus(await api("GET", "/version"), 200));
  console.log(`  server version ${(version as { gitVersion: string }).gitVersion}`);
  await step("create node", async () => expectStatus(await api("POST", "/api/v1/nodes", node), 201));
  const nodeStatus = await step("node Ready", () =>
    until("node Ready", async () => {
      const json = (await api("GET", "/api/v1/nodes/kwok-gpu-0")).json as Status;
      const ready = json.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
      return ready ? json : undefined;
    }),
  );
  console.log(`  node status ${JSON.stringify(nodeStatus.status?.conditions?.map((c) => c.type))}`);
  await step("create pod", async () =>
    expectStatus(await api("POST", "/api/v1/namespaces/default/pods", pod), 201),
  );
  const running = await step("pod Running with a pod IP", () =>
    until("pod Running", async () => {
      const json = (await api("GET", "/api/v1/namespaces/default/pods/smoke")).json as Status;
      return json.status?.phase === "Running" && json.status.podIP ? json : undefined;
    }),
  );
  console.log(`  pod IP ${running.status?.podIP}`);
  await step("delete pod (until gone)", async () => {
    const deleted = expectStatus(await api("DELETE", "/api/v1/namespaces/default/pods/smoke"), 200) as {
      metadata: { deletionGracePeriodSeconds?: number };
    };
    console.log(
      `  graceful delete: ${deleted.metadata.deletionGracePeriodSeconds ?? "none"} s; KWOK finalizes`,
    );
    await until("pod gone", async () =>
      (await api("GET", "/api/v1/namespaces/default/pods/smoke")).status === 404 ? true : undefined,
    );
  });
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function main() {
  const log = VERBOSE ? (line: string) => console.log(`  | ${line}`) : () => {};
  await step("build (skipped when up to date)", () =>
    buildKubeTestCluster({ log: (line) => console.log(`  | ${line}`) }),
  );
  await rm(DATA_DIR, { recursive: true, force: true });
  const cluster = await step("start until READY", () => startKubeTestCluster({ dataDir: DATA_DIR, log }));
  console.log(`  ${cluster.server}, kubeconfig ${cluster.kubeconfigPath}`);
  try {
    const api = await apiClient(cluster);
    await exercise(api);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    console.log(`  RSS after 5 s idle: ${(await rssMiB(cluster.pid)).toFixed(0)} MiB`);
  } finally {
    await step("stop", () => cluster.stop());
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
