import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalBackend } from "@/server/cluster/local/backend";
import {
  API_VERSION_HEADER,
  jobDetailResponseSchema,
  jobListResponseSchema,
  nodeListResponseSchema,
  OPERATOR_API_VERSION,
  submitResponseSchema,
} from "@/server/domain/operator-api/contract";
import { rankOutputResponseSchema } from "@/server/domain/operator-api/rank-output";
import { type LocalApi, startLocalApi } from "@/server/operator/testing/local-api";
import { childEnv } from "@/test/child-env";

/** The operator's HTTP API (no controller running: nothing here starts pods). */
const ROOT = path.resolve(import.meta.dirname, "../../..");
let operatorApi: LocalApi;
let backend: LocalBackend;
let base: string;
let dataDir: string;
let token: string;

beforeAll(async () => {
  operatorApi = await startLocalApi({ name: "api", nodeCount: 2 });
  ({ backend, base, dataDir, token } = operatorApi);
});

afterAll(async () => {
  await operatorApi?.stop();
});

/** A call with the operator's token and a body's content type, as the console and the CLI make it. */
const api = (path: string, init: RequestInit = {}) => {
  const type = path === "/api/v1/jobs" ? "application/yaml" : "application/json";
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (init.body !== undefined) headers["content-type"] = type;
  return fetch(`${base}${path}`, { ...init, headers });
};
const submit = (body: string) => api("/api/v1/jobs", { method: "POST", body });

describe("POST /api/v1/jobs", () => {
  it("rejects an invalid job with each field path and line, and stores nothing", async () => {
    const response = await submit(await readFile(path.join(ROOT, "examples/jobs/invalid-job.yaml"), "utf8"));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      message: string;
      errors: Array<{ path: string; line?: number }>;
    };
    expect(body.errors.map((error) => error.path).sort()).toEqual([
      "spec.runPolicy.jobMaxRetryCount",
      "spec.runPolicy.logMonitoringConfiguration[0].logPattern",
      "spec.runPolicy.logMonitoringConfiguration[1].operator",
      "spec.runPolicy.restartPolicy.evalPeriodSeconds",
    ]);
    expect(body.errors.every((error) => typeof error.line === "number")).toBe(true);
    expect(body.message).toMatch(/^line \d+, spec\.runPolicy/m);
    expect(await backend.listJobs()).toEqual([]);
  });

  it("rejects YAML that does not parse, naming the line", async () => {
    const response = await submit("apiVersion: sagemaker.amazonaws.com/v1\nkind: [unclosed\n");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: Array<{ line?: number }> }).errors[0]?.line).toBeGreaterThan(
      0,
    );
    expect(await backend.listJobs()).toEqual([]);
  });

  it("accepts a valid job once, then refuses the same name", async () => {
    const yaml = await readFile(path.join(ROOT, "examples/jobs/small-job.yaml"), "utf8");
    const first = await submit(yaml);
    expect(first.status).toBe(201);
    const ref = (await first.json()) as { namespace: string; name: string };
    expect((await backend.getJob(ref))?.object.spec.nprocPerNode).toBe("4");
    const second = await submit(yaml);
    expect(second.status).toBe(409);
    expect(await backend.listJobs()).toHaveLength(1);
    const detail = await api(`/api/v1/jobs/${ref.namespace}/${ref.name}`);
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ restarts: [], live: null });
  });

  it("answers in the API contract's shapes, with its version, and returns the job's warnings", async () => {
    const yaml = (await readFile(path.join(ROOT, "examples/jobs/small-job.yaml"), "utf8")).replace(
      "name: small-job",
      "name: contract-job",
    );
    const submitted = await submit(yaml);
    expect(submitted.status).toBe(201);
    expect(submitted.headers.get(API_VERSION_HEADER)).toBe(OPERATOR_API_VERSION);
    const ref = submitResponseSchema.parse(await submitted.json());
    const detail = await api(`/api/v1/jobs/${ref.namespace}/${ref.name}`);
    expect(detail.headers.get(API_VERSION_HEADER)).toBe(OPERATOR_API_VERSION);
    expect(jobDetailResponseSchema.safeParse(await detail.json()).success).toBe(true);
    expect(jobListResponseSchema.safeParse(await (await api("/api/v1/jobs")).json()).success).toBe(true);
    const summary = await api("/api/v1/jobs?view=summary");
    expect(jobListResponseSchema.safeParse(await summary.json()).success).toBe(true);
    const wrongView = await api("/api/v1/jobs?view=brief");
    expect(wrongView.status).toBe(400);
    expect(JSON.stringify(await wrongView.json())).toContain('view: expected \\"full\\" or \\"summary\\"');
    expect(nodeListResponseSchema.safeParse(await (await api("/api/v1/nodes")).json()).success).toBe(true);
  });

  it("accepts a rule key hyperpodrun ignores, with a warning naming it and its line", async () => {
    const yaml = (await readFile(path.join(ROOT, "examples/jobs/small-job.yaml"), "utf8"))
      .replace("name: small-job", "name: warned-job")
      .replace("      - name: JobStart\n", "      - name: JobStart\n        logPatern: typo\n");
    const response = await submit(yaml);
    expect(response.status).toBe(201);
    const body = submitResponseSchema.parse(await response.json());
    expect(body.warnings.map((warning) => warning.message).join("; ")).toContain("logPatern");
    expect(body.warnings.every((warning) => typeof warning.line === "number")).toBe(true);
  });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), ...args, "--operator", base], {
      cwd: ROOT,
      // The CLI finds the token where the operator made it, in the data dir.
      env: childEnv({ REBOUND_DATA_DIR: dataDir, REBOUND_OPERATOR_TOKEN: "" }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npx rebound", () => {
  it("submit refuses an invalid job with field paths and lines, exit code 1", async () => {
    const result = await cli(["submit", "examples/jobs/invalid-job.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid-job\.yaml is not a valid job:\nline \d+, spec\.runPolicy/);
  });

  it("jobs lists what the operator knows", async () => {
    const result = await cli(["jobs"]);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe("NAMESPACE\tNAME\tSTATUS\tRANKS\tRESTARTS\tREASON");
  });
});

describe("other routes", () => {
  it("refuses a bad fault request with the field named", async () => {
    const response = await api("/api/v1/jobs/hyperpod-ns-llm-research/small-job/faults", {
      method: "POST",
      body: JSON.stringify({ kind: "meteor", rank: -1 }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^kind: .*; rank: /);
  });

  it("reads a rank's output only for a pod of the job and a whole local rank; a pod with none yet reads empty", async () => {
    const job = "/api/v1/jobs/hyperpod-ns-llm-research/small-job/rank-output";
    for (const [query, message] of [
      ["pod=small-job-workers-0&localRank=x", /^localRank: expected a whole number/],
      ["pod=small-job-workers-0&localRank=-1", /^localRank: /],
      ["pod=small-job-workers-0&localRank=70000", /^localRank: /],
      ["pod=other-job-workers-0&localRank=0", /^pod: other-job-workers-0 is not one of job/],
      ["pod=..%2F..%2Fetc&localRank=0", /^pod: expected a pod name/],
    ] as const) {
      const response = await api(`${job}?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(message);
    }
    const response = await api(`${job}?pod=small-job-workers-0&localRank=1`);
    expect(response.status).toBe(200);
    expect(rankOutputResponseSchema.parse(await response.json())).toMatchObject({
      pod: "small-job-workers-0",
      localRank: 1,
      lines: [],
      timing: "none",
    });
  });

  it("answers 404 for an unknown job and an unknown route", async () => {
    expect((await api("/api/v1/jobs/hyperpod-ns-x/missing")).status).toBe(404);
    expect((await api("/nope")).status).toBe(404);
    expect((await fetch(`${base}/nope`)).status).toBe(401);
  });
});
