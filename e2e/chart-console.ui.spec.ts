import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppsV1Api, CustomObjectsApi, type V1Container } from "@kubernetes/client-node";
import { expect, type Page, test } from "@playwright/test";
import { parse } from "yaml";
import {
  containerEnv,
  type RunningContainer,
  runContainer,
  serviceAccountCredentials,
} from "@/deploy/chart/kubelet";
import { CHART_DIR } from "@/deploy/chart/render";
import { runHelm } from "@/e2e/kube/helm";
import { buildOperator } from "@/scripts/lib/operator-build";
import { stopChild } from "@/scripts/lib/processes";
import {
  type KubeEnv,
  REPO_ROOT,
  startKubeEnv,
  waitUntil,
} from "@/server/cluster/kubernetes/testing/kube-env";
import { type PodAgents, startPodAgents } from "@/server/cluster/kubernetes/testing/pod-agents";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/server/db/embedded";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { findFreePort } from "@/server/http/free-port";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { startTestProvider, type TestProvider } from "../test/oidc-provider";
import { signInWithProvider } from "./fixtures/oidc-login";

/**
 * What `helm install` of the chart brings up, used as a platform team's user would (issue 38): the chart's
 * operator runs a HyperPodPyTorchJob to Running, and the chart's console, configured for single sign-on by the
 * chart's values alone, signs a user in through a real OpenID provider (oidc-provider's own login page) and
 * shows them the job. The test apiserver has no kubelet, so this file plays it for the two Deployments
 * (deploy/chart/kubelet.ts): their init and main containers' own commands and environment, each
 * authenticated as its ServiceAccount, so the console reaches the operator with the chart's RBAC. The
 * console runs the build `npm start` made for the other specs (the image's /app is this checkout).
 */
test.describe.configure({ mode: "serial" });

const NS = "rebound-system";
const TEAM_NS = "hyperpod-ns-a";
const ADMIN = { email: "platform@example.com", password: "a-platform-admin-password" };
const LOGIN = "kim";
const GROUP = "ml-platform";
const log = createLogger({ service: "chart-console-e2e" });

let kube: KubeEnv;
let dir: string;
let database: EmbeddedDatabase;
let provider: TestProvider;
let agents: PodAgents | undefined;
const running: RunningContainer[] = [];
let consoleUrl: string;

/** One container of a chart Deployment. */
async function deploymentContainer(name: string, container: string, init = false): Promise<V1Container> {
  const deployment = await kube.kubeConfig
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ name, namespace: NS });
  const spec = deployment.spec?.template.spec;
  const found = (init ? spec?.initContainers : spec?.containers)?.find((c) => c.name === container);
  if (!found) throw new Error(`the chart's ${name} Deployment has no container ${container}`);
  return found;
}

async function healthy(what: string, url: string, container: RunningContainer): Promise<void> {
  await waitUntil(what, async () => (await fetch(url).catch(() => null))?.ok ?? null, 180_000).catch(
    (error: unknown) => {
      throw new Error(`${String(error)}\noutput:\n${container.output().slice(-3000)}`);
    },
  );
}

/** The chart's operator Deployment, as the kubelet would run it (deploy/chart/operator.k8s-test.ts does too). */
async function startOperator(): Promise<string> {
  const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  await kube.core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: "rebound-agent-key" }, stringData: { key } },
  });
  await writeFile(path.join(dir, "key"), key);
  const container = await deploymentContainer("rebound-operator", "operator");
  const [apiPort, metricsPort] = [await findFreePort(), await findFreePort()];
  const env = await containerEnv(
    kube,
    container,
    { name: "rebound-operator-0", namespace: NS },
    {
      "/etc/rebound/agent-key": dir,
      "/tmp/rebound": path.join(dir, "operator-data"),
      OPERATOR_HOST: "127.0.0.1",
      OPERATOR_PORT: String(apiPort),
      OPERATOR_METRICS_PORT: String(metricsPort),
    },
  );
  await buildOperator();
  const sa = await serviceAccountCredentials(kube, {
    namespace: NS,
    serviceAccount: "rebound-operator",
    dir,
  });
  const operator = runContainer({ container, env: { KUBECONFIG: sa.kubeconfig, ...env }, cwd: REPO_ROOT });
  running.push(operator);
  await healthy("the operator's /healthz", `http://127.0.0.1:${metricsPort}/healthz`, operator);
  return `http://127.0.0.1:${apiPort}`;
}

/** The chart's console Deployment: its setup init container to completion, then the console. */
async function startConsole(port: number, operatorUrl: string): Promise<void> {
  const pod = { name: "rebound-console-0", namespace: NS };
  const sa = await serviceAccountCredentials(kube, { namespace: NS, serviceAccount: "rebound-console", dir });
  const setupContainer = await deploymentContainer("rebound-console", "setup", true);
  const setup = runContainer({
    container: setupContainer,
    env: { ...(await containerEnv(kube, setupContainer, pod, { REBOUND_DATA_DIR: path.join(dir, "data") })) },
    cwd: REPO_ROOT,
  });
  running.push(setup);
  const code = await setup.exited;
  if (code !== 0) throw new Error(`the console's setup container exited ${code}:\n${setup.output()}`);
  expect(setup.output()).toContain(`created the first cluster admin ${ADMIN.email}`);

  const container = await deploymentContainer("rebound-console", "console");
  const env = await containerEnv(kube, container, pod, {
    REBOUND_OPERATOR_URL: operatorUrl,
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
  });
  expect(env).toMatchObject({
    REBOUND_OIDC_ISSUER: provider.issuer,
    REBOUND_OIDC_CLIENT_SECRET: provider.clientSecret,
    REBOUND_PUBLIC_URL: consoleUrl,
  });
  const served = runContainer({
    container,
    // The service-account token the kubelet mounts, which the console sends to the operator.
    env: {
      ...env,
      KUBECONFIG: sa.kubeconfig,
      REBOUND_OPERATOR_TOKEN: sa.token,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    cwd: REPO_ROOT,
    replaceArgs: [
      ["0.0.0.0", "127.0.0.1"],
      ["3000", String(port)],
    ],
  });
  running.push(served);
  await healthy("the console's /api/healthz", `${consoleUrl}/api/healthz`, served);
}

test.beforeAll(async () => {
  test.setTimeout(600_000);
  kube = await startKubeEnv({
    nodes: ["kwok-cc-1", "kwok-cc-2"],
    gpusPerNode: 8,
    namespaces: [TEAM_NS],
    crd: false,
  });
  dir = await mkdtemp(path.join(tmpdir(), "rebound-chart-console-"));
  await chmod(dir, 0o755); // as root, PostgreSQL runs as its own user, which must enter its data dir below
  database = await startEmbeddedPostgres({ dataDir: path.join(dir, "postgres") });
  const port = await findFreePort();
  consoleUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({ redirectUri: `${consoleUrl}/api/auth/oidc/callback` });
  provider.accounts.set(LOGIN, {
    email: "kim@example.com",
    email_verified: true,
    name: "Kim SSO",
    groups: [GROUP],
  });

  await kube.core.createNamespace({ body: { metadata: { name: NS } } });
  await kube.core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: "rebound-admin" }, stringData: ADMIN },
  });
  const home = path.join(dir, "helm");
  const installed = await runHelm(
    [
      "install",
      "rebound",
      CHART_DIR,
      "-n",
      NS,
      ...[
        `database.url=${database.url}`,
        `console.publicUrl=${consoleUrl}`,
        "console.oidc.enabled=true",
        `console.oidc.issuer=${provider.issuer}`,
        `console.oidc.clientId=${provider.clientId}`,
        `console.oidc.clientSecret=${provider.clientSecret}`,
        "console.oidc.name=Company SSO",
      ].flatMap((value) => ["--set", value]),
    ],
    { home, kubeconfig: kube.cluster.kubeconfigPath },
  );
  expect(installed.stderr).toBe("");
  expect(installed.code).toBe(0);

  const operatorUrl = await startOperator();
  await startConsole(port, operatorUrl);
  agents = await startPodAgents({ kubeConfig: kube.kubeConfig, repoRoot: REPO_ROOT, dataDir: dir, log });
  const job = parse(
    demoJobYaml({ name: "chart-job", namespace: TEAM_NS, nodes: 2, ranks: 2, gpusPerPod: 8 }),
  );
  await kube.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: JOB_GROUP,
    version: JOB_VERSION,
    plural: JOB_PLURAL,
    namespace: TEAM_NS,
    body: job,
  });
});

test.afterAll(async () => {
  test.setTimeout(120_000);
  for (const container of running.reverse()) await stopChild(container.child);
  agents?.stop();
  await provider?.close();
  await kube?.stop();
  await database?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function signOut(page: Page) {
  await page.locator(".shell-session").getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
}

test("the chart's console signs a user in through the provider and shows the job the chart's operator runs", async ({
  page,
}) => {
  test.setTimeout(180_000);
  // The first cluster admin, from the rebound-admin Secret the chart's setup step read, maps the group.
  await page.goto(`${consoleUrl}/sign-in`);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  await page.goto(`${consoleUrl}/governance/sso`);
  await expect(page.getByText("Signing in with Company SSO")).toBeVisible();
  const form = page.getByRole("region", { name: "New mapping" });
  await form.getByRole("textbox", { name: "Group", exact: true }).fill(GROUP);
  await form
    .getByRole("combobox", { name: "Gives", exact: true })
    .selectOption({ label: "cluster admin (every team)" });
  await form.getByRole("button", { name: "Add mapping" }).click();
  await expect(page.getByRole("table", { name: "Group mappings" })).toContainText(GROUP);
  await signOut(page);

  // The user signs in on the provider's own login page and lands in the console.
  await signInWithProvider(page, {
    signInUrl: `${consoleUrl}/sign-in`,
    button: "Sign in with Company SSO",
    login: LOGIN,
  });
  await expect(page).toHaveURL(`${consoleUrl}/jobs`);
  await expect(page.locator(".shell-session")).toContainText("Kim SSO");

  // ... and sees the job the chart's operator runs, through the operator's API with the chart's RBAC.
  const row = page.getByRole("row").filter({ hasText: "chart-job" });
  await expect(row).toContainText("Running", { timeout: 120_000 });
  await signOut(page);
});
