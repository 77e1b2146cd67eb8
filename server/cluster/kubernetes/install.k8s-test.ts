import path from "node:path";
import { ApiextensionsV1Api, AppsV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_CRD_NAME } from "@/server/domain/job-spec/job-spec.schema";
import { install } from "./install";
import { CRD_OWNER_ANNOTATION } from "./objects";
import { installCrd, type KubeEnv, REPO_ROOT, readCrd, startKubeEnv, waitUntil } from "./testing/kube-env";

/** `rebound install` against a real apiserver: never over someone else's CRD, everything otherwise. */
const DEPLOY = path.join(REPO_ROOT, "deploy");
let env: KubeEnv;
let crds: ApiextensionsV1Api;
let apps: AppsV1Api;
const lines: string[] = [];
const log = (line: string) => lines.push(line);

beforeAll(async () => {
  env = await startKubeEnv({ nodes: [], gpusPerNode: 8, namespaces: [], crd: false });
  crds = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
  apps = env.kubeConfig.makeApiClient(AppsV1Api);
}, 600_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

const deployment = (name: string) =>
  apps.readNamespacedDeployment({ namespace: "rebound-system", name }).then(
    (found) => found,
    (error: { code?: number }) => {
      if (error.code === 404) return null;
      throw error;
    },
  );

describe("rebound install", () => {
  it("leaves another operator's CRD untouched and installs only the console", async () => {
    const foreign = readCrd();
    delete foreign.metadata?.annotations?.[CRD_OWNER_ANNOTATION];
    foreign.metadata = { ...foreign.metadata, labels: { "app.kubernetes.io/managed-by": "aws" } };
    await installCrd(env.kubeConfig, foreign);
    const before = await crds.readCustomResourceDefinition({ name: JOB_CRD_NAME });

    const plan = await install({ kubeConfig: env.kubeConfig, deployDir: DEPLOY, log });
    expect(plan.mode).toBe("console-only");
    const after = await crds.readCustomResourceDefinition({ name: JOB_CRD_NAME });
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.metadata?.labels?.["app.kubernetes.io/managed-by"]).toBe("aws");
    expect(await deployment("rebound-console")).not.toBeNull();
    expect(await deployment("rebound-operator")).toBeNull();
    expect(lines.join("\n")).toContain("belongs to another operator");
  });

  it("installs the CRD, the operator and the console when no CRD exists, and again idempotently", async () => {
    await crds.deleteCustomResourceDefinition({ name: JOB_CRD_NAME });
    await waitUntil("the CRD to be gone", () =>
      crds.readCustomResourceDefinition({ name: JOB_CRD_NAME }).then(
        () => false,
        () => true,
      ),
    );
    const plan = await install({ kubeConfig: env.kubeConfig, deployDir: DEPLOY, log });
    expect(plan.mode).toBe("managed");
    const crd = await crds.readCustomResourceDefinition({ name: JOB_CRD_NAME });
    expect(crd.metadata?.annotations?.[CRD_OWNER_ANNOTATION]).toBe("rebound");
    const operator = await deployment("rebound-operator");
    expect(operator?.spec?.replicas).toBe(2);
    const again = await install({ kubeConfig: env.kubeConfig, deployDir: DEPLOY, log });
    expect(again.objects.map((object) => object.kind)).toEqual(plan.objects.map((object) => object.kind));
  });
});
