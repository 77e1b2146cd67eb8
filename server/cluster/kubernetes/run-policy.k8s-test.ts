import { CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createKubernetesBackend, type KubernetesBackend } from "./backend";
import { type KubeEnv, startKubeEnv, waitUntil } from "./testing/kube-env";

/**
 * Issue 12's apply on a real kube-apiserver: the caller's version is the spec's (metadata.generation); a
 * stale one is refused with the version now and nothing changes; with the current one the new runPolicy
 * lands whole (keys it drops are gone, not merged) with the policy's annotation, by one merge patch
 * carrying the resourceVersion just read, even after the operator wrote the status meanwhile; a shadow's
 * annotations come and go without touching spec.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "it-run-policy";
const ref = { namespace: NAMESPACE, name: JOB };
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };

let env: KubeEnv;
let backend: KubernetesBackend;
let custom: CustomObjectsApi;

type Stored = {
  metadata: { resourceVersion: string; generation: number; annotations?: Record<string, string> };
  spec: { runPolicy: Record<string, unknown> };
};
const stored = async () =>
  (await custom.getNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, name: JOB })) as Stored;

const newPolicy: RunPolicy = {
  cleanPodPolicy: "All",
  restartPolicy: { evalPeriodSeconds: 600, numRestartBeforeFullJobRestart: 2 },
  logMonitoringConfiguration: [
    { name: "Stall", logPattern: ".*step=(\\d+).*", expectedRecurringFrequencyInSeconds: 30 },
  ],
};

beforeAll(async () => {
  env = await startKubeEnv({ nodes: [], gpusPerNode: 0, namespaces: [NAMESPACE] });
  custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const body = parse(demoJobYaml({ name: JOB, nodes: 1, ranks: 1 })) as object;
  await custom.createNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, body });
  backend = await createKubernetesBackend({
    kubeConfig: env.kubeConfig,
    log: createLogger({ test: "run-policy-k8s" }),
    mode: "console",
  });
  await backend.start();
  await waitUntil("the informer to see the job", () => backend.getJob(ref), 60_000);
}, 600_000);

afterAll(async () => {
  await backend?.stop();
  await env?.stop();
}, 60_000);

describe("updating a job's runPolicy on Kubernetes", () => {
  it("refuses a stale version with the version now, and changes nothing", async () => {
    const before = await stored();
    const stale = String(before.metadata.generation - 1);
    const result = await backend.updateJobObject(ref, {
      runPolicy: newPolicy,
      annotations: { "rebound.dev/policy": "llm/stall v2" },
      expectedVersion: stale,
    });
    expect(result).toEqual({
      ok: false,
      reason: "conflict",
      expected: stale,
      current: String(before.metadata.generation),
    });
    const after = await stored();
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec.runPolicy).toEqual(before.spec.runPolicy);
    expect(after.metadata.annotations?.["rebound.dev/policy"]).toBeUndefined();
  });

  it("lands with the current version after a status write: the runPolicy replaced whole, the annotation set", async () => {
    const before = await stored();
    expect(before.spec.runPolicy.jobMaxRetryCount).toBe(100);
    // The operator writes the status between the page's read and the apply: the resourceVersion moves on,
    // the spec's version does not, and the apply still lands.
    await backend.updateJobStatus(ref, { rebound: { phase: "Running" } } as never);
    const written = await stored();
    expect(written.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
    const result = await backend.updateJobObject(ref, {
      runPolicy: newPolicy,
      annotations: { "rebound.dev/policy": "llm/stall v2" },
      expectedVersion: String(before.metadata.generation),
    });
    const after = await stored();
    expect(result).toEqual({ ok: true, resourceVersion: String(after.metadata.generation) });
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    expect(after.metadata.annotations?.["rebound.dev/policy"]).toBe("llm/stall v2");
    // Merged key by key, the old restartPolicy's maxFullJobRestarts and jobMaxRetryCount would have stayed.
    expect(after.spec.runPolicy).toEqual(newPolicy);
  });

  it("sets and removes annotations alone (a shadow), leaving spec as it is", async () => {
    const before = await stored();
    const set = await backend.updateJobObject(ref, {
      annotations: { "rebound.dev/shadow-log-monitoring": "[]" },
      expectedVersion: null,
    });
    expect(set.ok).toBe(true);
    expect((await stored()).metadata.annotations?.["rebound.dev/shadow-log-monitoring"]).toBe("[]");
    await backend.updateJobObject(ref, {
      annotations: { "rebound.dev/shadow-log-monitoring": null },
      expectedVersion: null,
    });
    const after = await stored();
    expect(after.metadata.annotations?.["rebound.dev/shadow-log-monitoring"]).toBeUndefined();
    expect(after.metadata.annotations?.["rebound.dev/policy"]).toBe("llm/stall v2");
    expect(after.spec).toEqual(before.spec);
  });
});
