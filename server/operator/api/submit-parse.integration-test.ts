import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { LocalBackend } from "@/server/cluster/local/backend";
import { type LocalApi, startLocalApi } from "@/server/operator/testing/local-api";

/**
 * Submit parses the YAML once (issue 35 item 4): the route parses it to authorise the namespace it names
 * and hands the parsed job to the back end, which stores it without parsing the text again (before, the
 * back end's submitYaml parsed it a second time). The parser is the real one; it and the `yaml` package's
 * entry points are wrapped only to count calls. Real operator API over HTTP, real local back end, real
 * Postgres; no controller runs (nothing starts pods).
 */
const counts = vi.hoisted(() => ({ parseJobYaml: 0, yaml: 0 }));

vi.mock("@/server/domain/job-spec/parse-job", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/server/domain/job-spec/parse-job")>();
  return {
    ...real,
    parseJobYaml: (text: string) => {
      counts.parseJobYaml += 1;
      return real.parseJobYaml(text);
    },
  };
});

vi.mock("yaml", async (importOriginal) => {
  const real = await importOriginal<typeof import("yaml")>();
  const counted =
    <A extends unknown[], R>(parse: (...args: A) => R) =>
    (...args: A): R => {
      counts.yaml += 1;
      return parse(...args);
    };
  return {
    ...real,
    parse: counted(real.parse),
    parseDocument: counted(real.parseDocument),
    parseAllDocuments: counted(real.parseAllDocuments),
  };
});

const ROOT = path.resolve(import.meta.dirname, "../../..");
let api: LocalApi;
let backend: LocalBackend;
let base: string;
let token: string;

beforeAll(async () => {
  api = await startLocalApi({ name: "submit-parse", nodeCount: 1 });
  ({ backend, base, token } = api);
});

afterAll(async () => {
  await api?.stop();
});

beforeEach(() => {
  counts.parseJobYaml = 0;
  counts.yaml = 0;
});

const submit = (body: string) =>
  fetch(`${base}/api/v1/jobs`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/yaml" },
  });

describe("POST /api/v1/jobs parses the YAML once", () => {
  it("for a job it accepts and stores", async () => {
    const yaml = await readFile(path.join(ROOT, "examples/jobs/small-job.yaml"), "utf8");
    const response = await submit(yaml);
    expect(response.status, await response.clone().text()).toBe(201);
    const ref = (await response.json()) as { namespace: string; name: string };
    // Stored as parsed: the spec the operator reads back is the one submitted.
    expect((await backend.getJob(ref))?.object.spec.nprocPerNode).toBe("4");
    expect(counts).toEqual({ parseJobYaml: 1, yaml: 1 });
  });

  it("for a job it refuses, naming the field", async () => {
    const yaml = await readFile(path.join(ROOT, "examples/jobs/invalid-job.yaml"), "utf8");
    const response = await submit(yaml);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Array<{ path: string }> };
    expect(body.errors.map((error) => error.path)).toContain("spec.runPolicy.jobMaxRetryCount");
    expect(counts).toEqual({ parseJobYaml: 1, yaml: 1 });
  });

  it("for YAML that does not parse", async () => {
    const response = await submit("apiVersion: sagemaker.amazonaws.com/v1\nkind: [unclosed\n");
    expect(response.status).toBe(400);
    expect(counts).toEqual({ parseJobYaml: 1, yaml: 1 });
  });

  it("is counted wherever it happens: the back end's own text submit is seen parsing", async () => {
    // What the route did before: parse, then hand the text to submitYaml, which parses again.
    const yaml = (await readFile(path.join(ROOT, "examples/jobs/small-job.yaml"), "utf8")).replace(
      "name: small-job",
      "name: text-submitted-job",
    );
    const result = await backend.submitYaml(yaml);
    expect(result.ok).toBe(true);
    expect(counts).toEqual({ parseJobYaml: 1, yaml: 1 });
  });
});
