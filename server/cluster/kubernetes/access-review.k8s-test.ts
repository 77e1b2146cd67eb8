import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import {
  type CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  loadAllYaml,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { kubernetesAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createTestDatabase } from "@/test/database";
import { createAccessReview, currentUserToken } from "./access-review";
import { detectClusterMode } from "./console-view";
import { type KubeEnv, REPO_ROOT, startKubeEnv, waitUntil } from "./testing/kube-env";
import { type KubeOperator, startKubeOperator } from "./testing/kube-operator";

/**
 * The operator's API on a real kube-apiserver: the operator checks bearer tokens with TokenReview and
 * rights with SubjectAccessReview, under its own service account with deploy/'s ClusterRole (so the
 * manifests grant what this needs). Callers: no token, a wrong token, a service account and a user
 * without rights (each refused on every route that changes something, nothing changed), a user bound to
 * deploy/'s rebound-console ClusterRole and the console's own service account (allowed, audited).
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const SYSTEM = "rebound-system";
const JOB = "it-api-auth";
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const users = {
  nobody: { user: "it-nobody", token: randomBytes(24).toString("hex") },
  console: { user: "it-console-user", token: randomBytes(24).toString("hex"), groups: ["it-console-users"] },
};

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let env: KubeEnv;
let operator: KubeOperator;
let server: Server;
let base: string;
let custom: CustomObjectsApi;
const tokens: Record<"saNobody" | "saConsole", string> = { saNobody: "", saConsole: "" };
let restartRequests = 0;

async function applyManifests(kubeConfig: KubeConfig, files: string[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const file of files) {
    const objects = loadAllYaml(readFileSync(path.join(REPO_ROOT, "deploy", file), "utf8"));
    for (const object of objects as KubernetesObject[]) await api.create(object);
  }
}

async function serviceAccountToken(core: CoreV1Api, name: string): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace: SYSTEM, body: { metadata: { name } } }).catch(() => {
    // deploy/ made it
  });
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace: SYSTEM,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`no token for service account ${name}`);
  return token;
}

/** The same cluster, as another user (a bearer token). */
function asUser(kubeConfig: KubeConfig, name: string, token: string): KubeConfig {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("no cluster");
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  return config;
}

beforeAll(async () => {
  database = await createTestDatabase("it_api_auth_kube");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  env = await startKubeEnv({
    nodes: ["kwok-node-0", "kwok-node-1"],
    gpusPerNode: 4,
    namespaces: [NAMESPACE, SYSTEM],
    extraTokens: Object.values(users),
  });
  await applyManifests(env.kubeConfig, [
    "rbac/operator/service-account.yaml",
    "rbac/operator/cluster-role.yaml",
    "rbac/operator/cluster-role-binding.yaml",
    "rbac/console/service-account.yaml",
    "rbac/console/cluster-role.yaml",
    "rbac/console/cluster-role-binding.yaml",
  ]);
  // The console's ClusterRole for a group of people (as a team would bind it), not only its pod.
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "it-console-users" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "rebound-console" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "it-console-users" }],
  };
  await KubernetesObjectApi.makeApiClient(env.kubeConfig).create(binding);
  const core = env.core;
  tokens.saNobody = await serviceAccountToken(core, "it-nobody");
  tokens.saConsole = await serviceAccountToken(core, "rebound-console");
  const operatorToken = await serviceAccountToken(core, "rebound-operator");

  operator = await startKubeOperator({ kubeConfig: env.kubeConfig, databaseUrl: database.url, quiet: true });
  operator.deps.requests.onAdded(() => {
    restartRequests += 1;
  });
  // The reviews go out as the operator's own service account, with deploy/'s ClusterRole only.
  const auth = kubernetesAuth(
    createAccessReview({ kubeConfig: asUser(env.kubeConfig, "rebound-operator", operatorToken) }),
  );
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const body = parse(demoJobYaml({ name: JOB, nodes: 1, ranks: 2, gpusPerPod: 2 })) as object;
  await custom.createNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, body });
  await waitUntil(
    "the operator to know the job",
    () => operator.live({ namespace: NAMESPACE, name: JOB }),
    60_000,
  );
}, 600_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await operator?.stop().catch(() => undefined);
  await env?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

function call(route: string, init: { method?: string; body?: string; token?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  // The body's type, as the CLI and the console send it (anything else is refused with 415).
  if (init.body !== undefined)
    headers["content-type"] = route === "/api/v1/jobs" ? "application/yaml" : "application/json";
  return fetch(`${base}${route}`, { method: init.method ?? "GET", body: init.body, headers });
}

const job = `/api/v1/jobs/${NAMESPACE}/${JOB}`;
const action = (name: string, extra: object = {}) =>
  JSON.stringify({ action: name, by: "it@rebound.local", ...extra });
const mutating = [
  { method: "POST", route: "/api/v1/jobs", body: demoJobYaml({ name: "it-api-other", nodes: 1, ranks: 1 }) },
  { method: "DELETE", route: job },
  { method: "POST", route: `${job}/faults`, body: JSON.stringify({ kind: "crash", rank: 0 }) },
  ...["suspend", "resume", "restart-job"].map((name) => ({
    method: "POST",
    route: `${job}/actions`,
    body: action(name),
  })),
  { method: "POST", route: `${job}/actions`, body: action("restart-rank", { rank: 0 }) },
  { method: "POST", route: `${job}/actions`, body: action("restart-pod", { pod: `${JOB}-workers-0` }) },
  {
    method: "PUT",
    route: `${job}/run-policy`,
    body: JSON.stringify({ runPolicy: {}, expectedVersion: "1", policy: null, by: "it@rebound.local" }),
  },
  {
    method: "PUT",
    route: `${job}/shadow-policy`,
    body: JSON.stringify({ rules: null, policy: null, by: "it@rebound.local" }),
  },
];

async function theJob() {
  return (await custom.getNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, name: JOB })) as {
    metadata: { deletionTimestamp?: string };
    spec: { runPolicy?: { suspend?: boolean } };
  };
}

describe("the operator's API on Kubernetes", () => {
  it("answers /healthz and /metrics without a token", async () => {
    expect((await call("/healthz")).status).toBe(200);
    expect((await call("/metrics")).status).toBe(200);
  });

  it.each(mutating)(
    "$method $route: 401 without a token or with a wrong one",
    async ({ method, route, body }) => {
      for (const token of [null, "wrong-token"]) {
        const response = await call(route, { method, body, token });
        expect(response.status, `token ${token}`).toBe(401);
        expect(((await response.json()) as { message: string }).message).toMatch(
          /authorization required|not accepted/,
        );
      }
    },
  );

  it.each(mutating)(
    "$method $route: 403 for a service account and a user without rights",
    async (request) => {
      for (const [who, token] of [
        ["system:serviceaccount:rebound-system:it-nobody", tokens.saNobody],
        ["it-nobody", users.nobody.token],
      ] as const) {
        const response = await call(request.route, { ...request, token });
        expect(response.status, who).toBe(403);
        const { message } = (await response.json()) as { message: string };
        expect(message).toContain(`${who} may not `);
        expect(message).toMatch(
          /hyperpodpytorchjobs\.sagemaker\.amazonaws\.com in namespace hyperpod-ns-llm-research/,
        );
      }
    },
  );

  it("refused calls changed nothing: the job is there, not suspended, no restart asked, nothing audited", async () => {
    const current = await theJob();
    expect(current.metadata.deletionTimestamp).toBeUndefined();
    expect(current.spec.runPolicy?.suspend ?? false).toBe(false);
    expect(restartRequests).toBe(0);
    expect(await db.auditLog.count({ where: { action: { startsWith: "operator." } } })).toBe(0);
    const other = await custom
      .getNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, name: "it-api-other" })
      .catch((error: { code?: number }) => error.code);
    expect(other).toBe(404);
  });

  it("refuses reads to a caller without rights (403), lets the console's service account read", async () => {
    expect((await call("/api/v1/nodes", { token: users.nobody.token })).status).toBe(403);
    expect((await call(job, { token: users.nobody.token })).status).toBe(403);
    expect(
      ((await (await call("/api/v1/jobs", { token: users.nobody.token })).json()) as { jobs: [] }).jobs,
    ).toEqual([]);
    const listed = (await (await call("/api/v1/jobs", { token: tokens.saConsole })).json()) as {
      jobs: Array<{ name: string }>;
    };
    expect(listed.jobs.map((entry) => entry.name)).toContain(JOB);
    expect((await call("/api/v1/nodes", { token: tokens.saConsole })).status).toBe(200);
  });

  it("lets a user with the console's ClusterRole suspend the job: done and audited with their name", async () => {
    const response = await call(`${job}/actions`, {
      method: "POST",
      body: action("suspend"),
      token: users.console.token,
    });
    expect(response.status, await response.clone().text()).toBe(202);
    await waitUntil("the job to be suspended", async () => (await theJob()).spec.runPolicy?.suspend === true);
    const row = await db.auditLog.findFirst({ where: { action: "operator.job.suspend" } });
    expect(row).toMatchObject({ target: `${NAMESPACE}/${JOB}` });
    expect(row?.details).toMatchObject({
      caller: "it-console-user",
      via: "kubernetes",
      by: "it@rebound.local",
    });
  });

  it("takes submissions and faults on the local back end only, even from a caller with the rights", async () => {
    const [submit, , fault] = mutating;
    for (const request of [submit, fault]) {
      if (!request) throw new Error("missing request");
      expect((await call(request.route, { ...request, token: users.console.token })).status).toBe(405);
    }
  });

  it("lets the console's service account delete the job: audited with the service account", async () => {
    const response = await call(job, { method: "DELETE", token: tokens.saConsole });
    expect(response.status).toBe(202);
    const row = await db.auditLog.findFirst({ where: { action: "operator.job.delete" } });
    expect(row?.details).toMatchObject({ caller: "system:serviceaccount:rebound-system:rebound-console" });
    await waitUntil(
      "the job to be gone",
      async () =>
        custom
          .getNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, name: JOB })
          .then(() => false)
          .catch((error: { code?: number }) => error.code === 404),
      60_000,
    );
  });

  it("lets the operator's and the console's service accounts read whose the CRD is, as each checks at start", async () => {
    const operatorToken = await serviceAccountToken(env.core, "rebound-operator");
    for (const [name, token] of [
      ["rebound-operator", operatorToken],
      ["rebound-console", tokens.saConsole ?? ""],
    ] as const)
      expect(await detectClusterMode(asUser(env.kubeConfig, name, token)), name).toBe("managed");
  });

  it("finds the kubeconfig user's token for the CLI", async () => {
    expect(await currentUserToken(asUser(env.kubeConfig, "someone", "abc.def"))).toBe("abc.def");
    expect(await currentUserToken(env.kubeConfig)).toBe(env.cluster.adminToken);
  });
});

describe("the review cache", () => {
  it("answers from the cache for its TTL (a revoked right or token still passes), then asks again", async () => {
    const review = createAccessReview({ kubeConfig: env.kubeConfig, ttlMs: 1500 });
    const core = env.core;
    const token = await serviceAccountToken(core, "it-short-lived");
    const user = await review.authenticate(token);
    expect(user?.username).toBe("system:serviceaccount:rebound-system:it-short-lived");
    if (!user) return;
    const check = { verb: "list", group: "", resource: "nodes", namespace: "" };
    const rbac = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "it-short-lived" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "rebound-console" },
      subjects: [{ kind: "ServiceAccount", name: "it-short-lived", namespace: SYSTEM }],
    };
    await rbac.create(binding);
    await waitUntil("the binding to take effect", async () => {
      const fresh = createAccessReview({ kubeConfig: env.kubeConfig });
      return (await fresh.allowed(user, check)).allowed;
    });
    expect((await review.allowed(user, check)).allowed).toBe(true);
    const cachedAt = Date.now();
    await rbac.delete(binding);
    await core.deleteNamespacedServiceAccount({ name: "it-short-lived", namespace: SYSTEM });
    // Within the TTL: the same answers, without asking.
    expect((await review.allowed(user, check)).allowed).toBe(true);
    expect(await review.authenticate(token)).toEqual(user);
    expect(Date.now() - cachedAt).toBeLessThan(1500);
    // After it: asked again, and both are gone.
    await waitUntil(
      "the cached answers to expire",
      async () => !(await review.allowed(user, check)).allowed,
      10_000,
    );
    await waitUntil(
      "the token to be refused",
      async () => (await review.authenticate(token)) === null,
      10_000,
    );
  });
});
