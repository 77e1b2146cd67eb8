import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HelmResult, runHelm } from "@/e2e/kube/helm";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { stopChild } from "@/scripts/lib/processes";
import { type KubeEnv, startKubeEnv, waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import { createDb } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { findFreePort } from "@/server/http/free-port";
import { createTestDatabase } from "@/test/database";
import { CHART_DIR } from "./render";
import { ALL_ON, sets } from "./testing";

/**
 * `helm install`, `helm upgrade` and `helm test` of the chart into the real test apiserver (e2e/kube: no
 * kubelet, no controllers). The Deployments' pods never exist there, so this checks what Helm makes and
 * the CRD it serves, not running pods. For `helm test`, this file plays the kubelet for the one test pod:
 * it runs the pod's own command (from the object Helm created) on this machine, against a real operator
 * process, and writes the pod's phase from its exit code; Helm waits for that phase as on a real cluster.
 */

const NS = "rebound-system";
/** ALL_ON but the ServiceMonitor: the test apiserver has no prometheus-operator CRDs. */
const INSTALLED = ALL_ON.filter((value) => !value.startsWith("prometheus.serviceMonitor"));

let env: KubeEnv;
let home: string;
const helm = (args: string[]): Promise<HelmResult> =>
  runHelm(args, { home, kubeconfig: env.cluster.kubeconfigPath });

beforeAll(async () => {
  env = await startKubeEnv({
    nodes: ["kwok-helm-1"],
    gpusPerNode: 8,
    namespaces: ["kueue-system", "hyperpod-ns-a", "hyperpod-ns-b"],
    crd: false, // the chart installs it
  });
  home = await mkdtemp(path.join(tmpdir(), "rebound-helm-"));
}, 180_000);

afterAll(async () => {
  await env?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("helm install into the test apiserver", () => {
  it("installs every object, in the release namespace and the teams' and Kueue's", async () => {
    // Kueue's own install made its ConfigMap; marked for adoption as docs/helm.md says, Helm takes it over.
    await env.core.createNamespacedConfigMap({
      namespace: "kueue-system",
      body: {
        metadata: {
          name: "kueue-manager-config",
          labels: { "app.kubernetes.io/managed-by": "Helm" },
          annotations: { "meta.helm.sh/release-name": "rebound", "meta.helm.sh/release-namespace": NS },
        },
        data: { "controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta1\n" },
      },
    });
    const result = await helm([
      "install",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      "--create-namespace",
      ...sets(INSTALLED),
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("STATUS: deployed");
    expect(result.stdout).toContain("helm test rebound -n rebound-system"); // NOTES.txt

    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const networking = env.kubeConfig.makeApiClient(NetworkingV1Api);
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const operator = await apps.readNamespacedDeployment({ name: "rebound-operator", namespace: NS });
    expect(operator.spec?.replicas).toBe(2);
    const console = await apps.readNamespacedDeployment({ name: "rebound-console", namespace: NS });
    expect(console.spec?.template.spec?.containers[0]?.securityContext?.readOnlyRootFilesystem).toBe(true);
    await env.core.readNamespacedService({ name: "rebound-operator", namespace: NS });
    await env.core.readNamespacedService({ name: "rebound-console", namespace: NS });
    await env.core.readNamespacedServiceAccount({ name: "rebound-operator", namespace: NS });
    const secret = await env.core.readNamespacedSecret({ name: "rebound-db", namespace: NS });
    expect(Buffer.from(secret.data?.url ?? "", "base64").toString()).toContain("postgres.example");
    const config = await env.core.readNamespacedConfigMap({ name: "rebound-config", namespace: NS });
    expect(config.data?.["prometheus-url"]).toBe("http://prometheus.monitoring.svc:9090");
    await env.core.readNamespacedConfigMap({ name: "rebound-prometheus", namespace: NS });
    const kueue = await env.core.readNamespacedConfigMap({
      name: "kueue-manager-config",
      namespace: "kueue-system",
    });
    expect(kueue.data?.["controller_manager_config.yaml"]).toContain("externalFrameworks");
    await networking.readNamespacedNetworkPolicy({ name: "rebound-operator", namespace: NS });
    for (const namespace of ["hyperpod-ns-a", "hyperpod-ns-b"]) {
      const agents = await networking.readNamespacedNetworkPolicy({ name: "rebound-agents", namespace });
      expect(agents.spec?.ingress?.[0]?._from?.[0]?.namespaceSelector?.matchLabels).toEqual({
        "kubernetes.io/metadata.name": NS,
      });
    }
    const ingress = await networking.readNamespacedIngress({ name: "rebound-console", namespace: NS });
    expect(ingress.spec?.rules?.[0]?.host).toBe("rebound.example.com");
    for (const name of ["rebound-operator", "rebound-operator-kueue", "rebound-console"]) {
      await rbac.readClusterRole({ name });
      await rbac.readClusterRoleBinding({ name });
    }
    await rbac.readNamespacedRole({ name: "rebound-operator-leader-election", namespace: NS });
    // The test hook is not installed; `helm test` creates it.
    await expect(
      env.core.readNamespacedPod({ name: "rebound-health-check", namespace: NS }),
    ).rejects.toThrow();
  });

  it("serves the CRD it installed (Helm's, so upgrades update it), and jobs can be created", async () => {
    const extensions = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const crd = await waitUntil("the CRD to be established", async () => {
      const current = await extensions.readCustomResourceDefinition({
        name: "hyperpodpytorchjobs.sagemaker.amazonaws.com",
      });
      return (
        current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") && current
      );
    });
    expect(crd.metadata?.annotations?.["meta.helm.sh/release-name"]).toBe("rebound");
    expect(crd.metadata?.annotations?.["rebound.dev/owned-by"]).toBe("rebound");
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const job = {
      apiVersion: "sagemaker.amazonaws.com/v1",
      kind: "HyperPodPyTorchJob",
      metadata: { name: "helm-smoke", namespace: "hyperpod-ns-a" },
      spec: {
        replicaSpecs: [
          {
            name: "pods",
            replicas: 1,
            template: { spec: { containers: [{ name: "trainer", image: "x" }] } },
          },
        ],
      },
    };
    const created = (await custom.createNamespacedCustomObject({
      group: "sagemaker.amazonaws.com",
      version: "v1",
      namespace: "hyperpod-ns-a",
      plural: "hyperpodpytorchjobs",
      body: job,
    })) as { spec: { runPolicy?: { cleanPodPolicy?: string } } };
    expect(created.spec.runPolicy?.cleanPodPolicy).toBe("All"); // the CRD's defaults apply
  });

  it("upgrades in place: new values reach the objects, removed parts go", async () => {
    const result = await helm([
      "upgrade",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      ...sets(INSTALLED),
      "--set",
      "operator.replicas=3",
      "--set",
      "kueue.enabled=false",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("REVISION: 2");
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const operator = await apps.readNamespacedDeployment({ name: "rebound-operator", namespace: NS });
    expect(operator.spec?.replicas).toBe(3);
    await expect(
      env.core.readNamespacedConfigMap({ name: "kueue-manager-config", namespace: "kueue-system" }),
    ).rejects.toThrow();
  });
});

describe("helm test", () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  let metricsPort: number;
  let operator: { child: ChildProcess } | null = null;

  beforeAll(async () => {
    database = await createTestDatabase("k8s_helm_test");
    await migrate(database.url);
    const db = createDb(database.url);
    await seedIfEmpty(db);
    await db.$disconnect();
    dataDir = await mkdtemp(path.join(tmpdir(), "rebound-helm-operator-"));
    metricsPort = await findFreePort();
    operator = await startOperator({
      databaseUrl: database.url,
      port: await findFreePort(),
      dataDir,
      metricsPort,
    });
  }, 120_000);

  afterAll(async () => {
    if (operator) await stopChild(operator.child);
    if (dataDir) await killLeftoverPods(dataDir);
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * The kubelet's part for the test pod: once Helm has created it, run its container's command here, with
   * each Service's address mapped to where it listens on this machine, and set the pod's phase from the exit.
   */
  async function runTestPod(services: Record<string, string>): Promise<{ pod: V1Pod; output: string }> {
    const pod = await waitUntil(
      "helm test to create its pod",
      async () => {
        const found = await env.core.readNamespacedPod({ name: "rebound-health-check", namespace: NS });
        return !found.status?.phase || found.status.phase === "Pending" ? found : null;
      },
      30_000,
    );
    const container = pod.spec?.containers[0];
    const [command, ...flags] = container?.command ?? [];
    expect(command).toBe("node");
    let urls = container?.env?.find((entry) => entry.name === "HEALTH_URLS")?.value ?? "[]";
    for (const [from, to] of Object.entries(services)) urls = urls.replaceAll(from, to);
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = spawn("env", [
        `HEALTH_URLS=${urls}`,
        process.execPath,
        ...flags,
        ...(container?.args ?? []),
      ]);
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("exit", (exit) => resolve({ code: exit ?? 1, output: text }));
    });
    const phase = code === 0 ? "Succeeded" : "Failed";
    const status = { phase, containerStatuses: [] };
    await env.core.replaceNamespacedPodStatus({
      name: "rebound-health-check",
      namespace: NS,
      body: { ...pod, status: { ...pod.status, ...status } },
    });
    return { pod, output };
  }

  const OPERATOR_SERVICE = `http://rebound-operator.${NS}.svc:8082`;

  it("passes when the operator's /healthz answers 200 (console off)", async () => {
    const upgraded = await helm([
      "upgrade",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      "--reuse-values",
      "--set",
      "console.enabled=false",
    ]);
    expect(upgraded.code).toBe(0);
    const testing = helm(["test", "rebound", "-n", NS, "--timeout", "60s"]);
    const { output } = await runTestPod({ [OPERATOR_SERVICE]: `http://127.0.0.1:${metricsPort}` });
    const result = await testing;
    expect(output).toContain(`http://127.0.0.1:${metricsPort}/healthz: 200`);
    expect(result.stdout).toMatch(/TEST SUITE:\s+rebound-health-check[\s\S]*Phase:\s+Succeeded/);
    expect(result.code).toBe(0);
  });

  it("fails, naming the endpoint, when the console does not answer", async () => {
    const upgraded = await helm([
      "upgrade",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      "--reuse-values",
      "--set",
      "console.enabled=true",
    ]);
    expect(upgraded.code).toBe(0);
    const closed = await findFreePort(); // nothing listens there: the console's pods cannot run here
    const testing = helm(["test", "rebound", "-n", NS, "--timeout", "60s"]);
    const { output } = await runTestPod({
      [OPERATOR_SERVICE]: `http://127.0.0.1:${metricsPort}`,
      [`http://rebound-console.${NS}.svc:80`]: `http://127.0.0.1:${closed}`,
    });
    const result = await testing;
    expect(output).toContain(`http://127.0.0.1:${metricsPort}/healthz: 200`);
    expect(output).toMatch(new RegExp(`http://127.0.0.1:${closed}/api/healthz: .*fetch failed`));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("rebound-health-check");
  });
});
