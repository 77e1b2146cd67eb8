import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppsV1Api, CoordinationV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type HelmResult, runHelm } from "@/e2e/kube/helm";
import { buildOperator } from "@/scripts/lib/operator-build";
import { stopChild } from "@/scripts/lib/processes";
import {
  type KubeEnv,
  REPO_ROOT,
  startKubeEnv,
  waitUntil,
} from "@/server/cluster/kubernetes/testing/kube-env";
import { type PodAgents, startPodAgents } from "@/server/cluster/kubernetes/testing/pod-agents";
import { createDb } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { findFreePort } from "@/server/http/free-port";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createTestDatabase } from "@/test/database";
import { containerEnv, type RunningContainer, runContainer, serviceAccountCredentials } from "./kubelet";
import { CHART_DIR } from "./render";

/**
 * The operator the chart installs runs a HyperPodPyTorchJob to Running on the real test apiserver (e2e/kube:
 * no kubelet, no controllers). This file plays the kubelet for one replica of the chart's operator
 * Deployment: it runs the container's own command with the Deployment's own environment (its secret,
 * config-map and field references resolved as the kubelet would, its mounted agent key written to a file),
 * authenticated as the chart's ServiceAccount, so the chart's RBAC (leader election included) is what the
 * operator has. The job's pods get real agents from the pod-agents stand-in.
 */

const NS = "rebound-system";
const TEAM_NS = "hyperpod-ns-a";
const log = createLogger({ service: "chart-operator-it" });

let env: KubeEnv;
let home: string;
let dataDir: string;
let database: { url: string; drop: () => Promise<void> };
let agents: PodAgents | undefined;
let operator: RunningContainer | undefined;
const POD = { name: "rebound-operator-0", namespace: NS };
const helm = (args: string[]): Promise<HelmResult> =>
  runHelm(args, { home, kubeconfig: env.cluster.kubeconfigPath });

beforeAll(async () => {
  env = await startKubeEnv({
    nodes: ["kwok-op-1", "kwok-op-2"],
    gpusPerNode: 8,
    namespaces: [TEAM_NS],
    crd: false,
  });
  home = await mkdtemp(path.join(tmpdir(), "rebound-helm-op-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-chart-operator-"));
  database = await createTestDatabase("k8s_chart_operator");
  await migrate(database.url);
  const db = createDb(database.url);
  await seedIfEmpty(db);
  await db.$disconnect();
}, 300_000);

afterAll(async () => {
  if (operator) await stopChild(operator.child);
  agents?.stop();
  await env?.stop();
  await database?.drop();
  for (const dir of [home, dataDir]) if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe("the chart's operator", () => {
  it("runs a HyperPodPyTorchJob to Running with the chart's own Deployment, ServiceAccount and RBAC", async () => {
    const installed = await helm([
      "install",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      "--create-namespace",
      "--set",
      "console.enabled=false",
      "--set",
      `database.url=${database.url}`,
    ]);
    expect(installed.stderr).toBe("");
    expect(installed.code).toBe(0);
    // The agent key is the one Secret the chart expects the cluster admin to create (docs/helm.md).
    const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    await env.core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: "rebound-agent-key" }, stringData: { key } },
    });

    const deployment = await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: "rebound-operator", namespace: NS });
    const container = deployment.spec?.template.spec?.containers.find((c) => c.name === "operator");
    if (!container) throw new Error("the chart's operator Deployment has no operator container");
    await writeFile(path.join(dataDir, "key"), key); // the Secret's volume, mounted at /etc/rebound/agent-key
    const [apiPort, metricsPort] = [await findFreePort(), await findFreePort()];
    const operatorEnv = await containerEnv(env, container, POD, {
      "/etc/rebound/agent-key": dataDir,
      "/tmp/rebound": path.join(dataDir, "operator-data"),
      OPERATOR_HOST: "127.0.0.1",
      OPERATOR_PORT: String(apiPort),
      OPERATOR_METRICS_PORT: String(metricsPort),
    });
    expect(operatorEnv).toMatchObject({ REBOUND_CLUSTER: "kubernetes", DATABASE_URL: database.url });
    expect([...(container.command ?? []), ...(container.args ?? [])]).toEqual([
      "node",
      "dist/operator/main.mjs",
    ]);
    await buildOperator();
    const { kubeconfig } = await serviceAccountCredentials(env, {
      namespace: NS,
      serviceAccount: "rebound-operator",
      dir: dataDir,
    });
    operator = runContainer({ container, env: { KUBECONFIG: kubeconfig, ...operatorEnv }, cwd: REPO_ROOT });
    const output = operator.output;
    await waitUntil(
      "the operator's /healthz (its startup probe)",
      async () => (await fetch(`http://127.0.0.1:${metricsPort}/healthz`).catch(() => null))?.ok ?? null,
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\noperator output:\n${output().slice(-3000)}`);
    });

    agents = await startPodAgents({ kubeConfig: env.kubeConfig, repoRoot: REPO_ROOT, dataDir, log });
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const api = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL, namespace: TEAM_NS };
    const job = parse(
      demoJobYaml({ name: "chart-job", namespace: TEAM_NS, nodes: 2, ranks: 2, gpusPerPod: 8 }),
    );
    await custom.createNamespacedCustomObject({ ...api, body: job });
    const running = await waitUntil(
      "the job Running",
      async () => {
        const found = (await custom.getNamespacedCustomObject({ ...api, name: "chart-job" })) as {
          status?: { conditions?: Array<{ type: string; status: string }> };
        };
        return found.status?.conditions?.some((c) => c.type === "Running" && c.status === "True")
          ? found
          : null;
      },
      90_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\noperator output:\n${output().slice(-3000)}`);
    });
    expect(running.status?.conditions?.map((c) => c.type)).toEqual(
      expect.arrayContaining(["Created", "Running"]),
    );
    // It leads through the chart's leader-election Role: the Lease is its.
    const lease = await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: "rebound-operator", namespace: NS });
    expect(lease.spec?.holderIdentity).toBe("rebound-operator-0");
  }, 300_000);
});
