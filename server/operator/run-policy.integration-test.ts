import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import type { RunPolicy } from "@/server/domain/job-spec/run-policy.schema";
import { type JobDetailResponse, jobDetailResponseSchema } from "@/server/domain/operator-api/contract";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import { SourceError } from "@/server/services/jobs/gateway/types";
import { jobPage } from "@/server/services/jobs/queries";
import { createSeededTestDatabase } from "@/test/database";

/**
 * Issue 12 on a real local operator (real agents and workers, real PostgreSQL), through the operator's API:
 * an apply at the job's current version replaces spec.runPolicy and names the policy; a stale version is
 * refused (409) and changes nothing; no credential is 401; the agents keep their rules until the next
 * restart, then run the new ones. A shadow rule set that faults on the trainer's own lines leaves a
 * ShadowVerdict row and a ShadowWouldRestart event, and the job is not restarted for it.
 */
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "policy-job" };
const path = `/api/v1/jobs/${ref.namespace}/${ref.name}`;

let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let api: Server;
let base: string;

const call = (route: string, init: { method?: string; body?: unknown; token?: string | null } = {}) => {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? operator.token : init.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return fetch(`${base}${route}`, { method: init.method ?? "GET", body, headers });
};

async function detail(): Promise<JobDetailResponse> {
  const response = await call(path);
  expect(response.status).toBe(200);
  return jobDetailResponseSchema.parse(await response.json());
}

const ruleNames = (found: JobDetailResponse) =>
  Object.keys(found.live?.pods[0]?.ranks[0]?.rule_states ?? {}).sort();

const running = (what: string, extra: (found: JobDetailResponse) => boolean = () => true) =>
  operator.waitFor(
    what,
    async () => {
      const found = await detail();
      const ranks = found.live?.pods.flatMap((pod) => pod.ranks) ?? [];
      return found.live?.phase === "Running" &&
        ranks.length === 2 &&
        ranks.every((rank) => rank.step !== null) &&
        extra(found)
        ? found
        : null;
    },
    90_000,
  );

const applied: RunPolicy = {
  cleanPodPolicy: "All",
  jobMaxRetryCount: 50,
  restartPolicy: { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: 10, maxFullJobRestarts: 5 },
  logMonitoringConfiguration: [
    { name: "StepStall", logPattern: ".*step=(\\d+).*", expectedRecurringFrequencyInSeconds: 20 },
  ],
};
const label = { id: "policy-1", name: "stall", version: 2, team: "llm-research" };

beforeAll(async () => {
  database = await createSeededTestDatabase("it_run_policy");
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 2 });
  api = createServer(
    (req, res) =>
      void handleRequest({ req, res, deps: operator.deps, auth: operator.auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  await operator.submit(
    demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, gpusPerPod: 2, hangSeconds: 20, tee: true }),
  );
  await running("the job running");
}, 180_000);

afterAll(async () => {
  api?.close();
  await operator?.stop();
  await database?.drop();
}, 60_000);

describe("applying a run policy", () => {
  it("refuses a call without a credential or with a wrong one (401), changing nothing", async () => {
    const before = await detail();
    for (const token of [null, "wrong-token"]) {
      for (const [route, body] of [
        ["run-policy", { runPolicy: applied, expectedVersion: "1", policy: null, by: "x@y" }],
        ["shadow-policy", { rules: null, policy: null, by: "x@y" }],
      ] as const) {
        const response = await call(`${path}/${route}`, { method: "PUT", body, token });
        expect(response.status, `${route} with ${token}`).toBe(401);
      }
    }
    expect((await detail()).policy?.resourceVersion).toBe(before.policy?.resourceVersion);
  });

  it("refuses a stale version with 409 naming both versions, and changes nothing", async () => {
    const before = await detail();
    const current = before.policy?.resourceVersion ?? "";
    const stale = String(Number(current) - 1);
    const response = await call(`${path}/run-policy`, {
      method: "PUT",
      body: { runPolicy: applied, expectedVersion: stale, policy: label, by: "eng@rebound.local" },
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { message: string }).message).toBe(
      `the job changed since you loaded it (resourceVersion ${stale}, now ${current}); reload`,
    );
    const after = await detail();
    expect(after.job.spec.runPolicy).toEqual(before.job.spec.runPolicy);
    expect(after.policy?.applied).toBeNull();
    expect(after.policy?.resourceVersion).toBe(current);
  });

  it("refuses a runPolicy the schema refuses (400), naming the field", async () => {
    const response = await call(`${path}/run-policy`, {
      method: "PUT",
      body: {
        runPolicy: { restartPolicy: { evalPeriodSeconds: -1 } },
        expectedVersion: "1",
        policy: null,
        by: "eng@rebound.local",
      },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/runPolicy\.restartPolicy/);
  });

  it("applies at the current version: spec.runPolicy and the annotation change, audited; rules pending restart", async () => {
    const before = await detail();
    expect(ruleNames(before)).toEqual(["JobHang", "LossNaN"]);
    const response = await call(`${path}/run-policy`, {
      method: "PUT",
      body: {
        runPolicy: applied,
        expectedVersion: before.policy?.resourceVersion,
        policy: label,
        by: "eng@rebound.local",
      },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const { resourceVersion } = (await response.json()) as { resourceVersion: string };
    const after = await detail();
    expect(after.policy?.resourceVersion).toBe(resourceVersion);
    expect(resourceVersion).not.toBe(before.policy?.resourceVersion);
    expect(after.job.spec.runPolicy).toEqual(applied);
    const annotations = (after.job as { metadata?: { annotations?: Record<string, string> } }).metadata
      ?.annotations;
    expect(annotations?.["rebound.dev/policy"]).toBe("llm-research/stall v2");
    expect(after.policy?.applied).toEqual(label);
    expect(after.policy?.pendingRestart).toBe(true);
    // The running agents keep the rules they started with.
    expect(ruleNames(after)).toEqual(["JobHang", "LossNaN"]);
    const audit = await operator.db.auditLog.findFirst({ where: { action: "operator.job.run-policy" } });
    expect(audit?.target).toBe(`${ref.namespace}/${ref.name}`);
    expect(audit?.details).toMatchObject({ by: "eng@rebound.local", policy: "llm-research/stall v2" });
  });

  it("starts the next attempt's agents with the new rules; the restart row names the policy", async () => {
    const restart = await call(`${path}/actions`, {
      method: "POST",
      body: { action: "restart-job", by: "eng@rebound.local" },
    });
    expect(restart.status).toBe(202);
    const after = await running("the job running the new rules", (found) =>
      ruleNames(found).includes("StepStall"),
    );
    expect(ruleNames(after)).toEqual(["StepStall"]);
    expect(after.policy?.pendingRestart).toBe(false);
    const row = await operator.db.restartEvent.findFirst({ where: { jobName: ref.name } });
    expect(row?.policy).toBe("llm-research/stall v2");
    expect(after.restarts.at(-1)?.policy).toBe("llm-research/stall v2");
  });
});

describe("a shadow rule set", () => {
  it("records what it would have done, and the job is not restarted for it", async () => {
    const before = await detail();
    const restartsBefore = before.live?.restartCount ?? 0;
    const shadow = [{ name: "AnyStep", logPattern: ".*step=(\\d+).*", faultOnMatch: true }];
    const shadowLabel = { id: "policy-2", name: "strict", version: 3 };
    const response = await call(`${path}/shadow-policy`, {
      method: "PUT",
      body: { rules: shadow, policy: shadowLabel, by: "eng@rebound.local" },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const attached = await detail();
    // The spec stays as the user wrote it.
    expect(attached.job.spec.runPolicy).toEqual(applied);
    expect(attached.policy?.shadow).toEqual({ policy: shadowLabel, rules: shadow });

    const verdict = await operator.waitFor(
      "a shadow verdict",
      () => operator.db.shadowVerdict.findFirst({ where: { jobName: ref.name } }),
      30_000,
    );
    expect(verdict).toMatchObject({
      namespace: ref.namespace,
      pod: `${ref.name}-workers-0`,
      rank: 0,
      rule: "AnyStep",
      state: "FAULTED",
      reason: "LogFault_AnyStep",
      policy: "strict v3",
    });
    expect(verdict.line).toMatch(/step=\d+/);
    expect(verdict.wouldAction).toMatch(/^restarted rank 0 in place|replaced pod|restarted the whole job/);
    const event = await operator.waitFor(
      "the ShadowWouldRestart event",
      async () =>
        (await operator.backend.listEvents(ref)).find((found) => found.reason === "ShadowWouldRestart"),
      10_000,
    );
    expect(event.type).toBe("Normal");
    expect(event.message).toMatch(/^would have .+: rule AnyStep FAULTED at \d\d:\d\d:\d\dZ$/);

    // Watched for a while longer: still running, never restarted for the shadow's fault.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const later = await detail();
    expect(later.live?.phase).toBe("Running");
    expect(later.live?.restartCount).toBe(restartsBefore);
    expect(later.restarts.some((row) => row.faultReason.includes("AnyStep"))).toBe(false);
    expect(later.policy?.verdicts[0]?.rule).toBe("AnyStep");
    // FAULTED holds until the next attempt: one verdict for it, not one per line.
    expect(await operator.db.shadowVerdict.count({ where: { jobName: ref.name } })).toBe(1);
  });

  it("is removed with null rules, leaving the verdicts on record", async () => {
    const response = await call(`${path}/shadow-policy`, {
      method: "PUT",
      body: { rules: null, policy: null, by: "eng@rebound.local" },
    });
    expect(response.status).toBe(200);
    const after = await detail();
    expect(after.policy?.shadow).toBeNull();
    expect(after.policy?.verdicts).toHaveLength(1);
    const audits = await operator.db.auditLog.count({ where: { action: "operator.job.shadow-policy" } });
    expect(audits).toBe(2);
  });
});

describe("the console through the operator gateway", () => {
  const source = () => createOperatorSource({ baseUrl: base, mode: "local", token: () => operator.token });

  it("reads the policy state, and a stale apply comes back as a 409 with the operator's sentence", async () => {
    const detail = await source().job(ref);
    expect(detail?.policy?.runPolicy).toEqual(applied);
    expect(detail?.policy?.applied).toEqual(label);
    const current = detail?.policy?.resourceVersion ?? "";
    const error = await source()
      .applyRunPolicy(ref, {
        runPolicy: applied,
        expectedVersion: "1",
        policy: label,
        by: "eng@rebound.local",
      })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).status).toBe(409);
    expect((error as SourceError).message).toBe(
      `the job changed since you loaded it (resourceVersion 1, now ${current}); reload`,
    );
  });

  it("applies and shadows through the gateway; the job page shows version, policy, shadow and verdicts", async () => {
    const before = await source().job(ref);
    const next = { ...applied, jobMaxRetryCount: 40 };
    const label3 = { ...label, version: 3 };
    const written = await source().applyRunPolicy(ref, {
      runPolicy: next,
      expectedVersion: before?.policy?.resourceVersion ?? "",
      policy: label3,
      by: "eng@rebound.local",
    });
    const rules = [{ name: "Quiet", logPattern: ".*never printed.*", faultOnMatch: true }];
    await source().setShadowPolicy(ref, { rules, policy: null, by: "eng@rebound.local" });
    const page = await operator.waitFor(
      "the job page with the shadow",
      async () => {
        const found = await jobPage(operator.db, source(), ref);
        return found.shadow ? found : null;
      },
      10_000,
    );
    expect(Number(page.resourceVersion)).toBeGreaterThan(Number(written.resourceVersion));
    expect(page.appliedPolicy).toEqual(label3);
    expect(page.shadow?.rules).toEqual(rules);
    // The earlier shadow's verdict stays on the run's timeline as its own kind of entry.
    expect(page.verdicts.map((verdict) => verdict.rule)).toEqual(["AnyStep"]);
    expect(page.verdicts[0]?.message).toMatch(/^would have .+: rule AnyStep FAULTED at /);
    expect(page.pendingRestart).toBe(false);
    expect(page.timeline.at(-1)?.policy).toBe("llm-research/stall v2");
  });
});
