import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_VERSION_HEADER,
  type LiveJob,
  OPERATOR_API_VERSION,
} from "@/server/domain/operator-api/contract";
import { createOperatorSource } from "./operator-gateway";
import { SourceError } from "./types";

/** A loopback HTTP server standing in for an operator of some version: each test sets what it answers. */
type Answer = { status: number; body: unknown; version?: string | null };
let answer: Answer = { status: 200, body: {} };
let lastHeaders: IncomingHttpHeaders = {};
let lastUrl = "";
let server: Server;
let baseUrl = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    lastHeaders = req.headers;
    lastUrl = req.url ?? "";
    const headers: Record<string, string> = { "content-type": "application/json" };
    const version = answer.version === undefined ? OPERATOR_API_VERSION : answer.version;
    if (version !== null) headers[API_VERSION_HEADER] = version;
    res.writeHead(answer.status, headers);
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const liveJob: LiveJob = {
  namespace: "team-a",
  name: "train",
  createdAt: 1,
  gpus: 8,
  priorityClass: null,
  queue: null,
  phase: "Recovering",
  status: "Running",
  recovery: {
    action: "POD_REPLACEMENT",
    stage: "replacing",
    reason: "NodeFault",
    faultAt: 1,
    detectedAt: 2,
    pods: ["p"],
  },
  restartCount: 1,
  pods: [],
  ranksTotal: 8,
  ranksRunning: 0,
  updatedAt: 3,
};

const gateway = () => createOperatorSource({ baseUrl, mode: "local", token: () => "secret-token" });

async function refusal(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

describe("operator gateway", () => {
  it("parses an answer of this API version and sends the bearer token", async () => {
    answer = { status: 200, body: { jobs: [liveJob] } };
    await expect(gateway().jobs()).resolves.toEqual([liveJob]);
    expect(lastHeaders.authorization).toBe("Bearer secret-token");
  });

  it("reports an answer of another shape as an operator version mismatch, naming the field", async () => {
    answer = { status: 200, body: { jobs: [{ ...liveJob, phase: "Exploding" }] } };
    const error = await refusal(gateway().jobs());
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^operator version mismatch: its answer to GET \/api\/v1\/jobs/);
    expect(error.message).toContain("jobs.0.phase");
  });

  it("reports an older spelling of a restart type as a mismatch", async () => {
    const old = { ...liveJob, recovery: { ...liveJob.recovery, action: "REPLACE_PODS" } };
    answer = { status: 200, body: { jobs: [old] } };
    expect((await refusal(gateway().jobs())).message).toContain("jobs.0.recovery.action");
  });

  it("refuses an operator that says it speaks another API version", async () => {
    answer = { status: 200, body: { jobs: [liveJob] }, version: "2" };
    expect((await refusal(gateway().jobs())).message).toMatch(
      /operator version mismatch: the operator speaks API version 2, this console 1/,
    );
  });

  it("passes a refusal's own message and status on", async () => {
    answer = { status: 403, body: { message: "alice may not patch hyperpodpytorchjobs in team-a" } };
    const error = await refusal(
      gateway().act({ namespace: "team-a", name: "train" }, { action: "suspend", by: "a" }),
    );
    expect(error.status).toBe(403);
    expect(error.message).toBe("alice may not patch hyperpodpytorchjobs in team-a");
  });

  it("treats a job the operator does not know as absent", async () => {
    answer = { status: 404, body: { message: "job team-a/x not found" } };
    await expect(gateway().job({ namespace: "team-a", name: "x" })).resolves.toBeNull();
  });

  it("reads the embedded metrics history of a job, or of namespaces, and validates the answer", async () => {
    const series = [{ name: "job total", points: [{ t: 1000, value: 2400 }] }];
    answer = { status: 200, body: { stepSeconds: 5, series } };
    const job = { namespace: "team-a", name: "train" };
    await expect(
      gateway().history({ scope: "job", ref: job, series: "throughput", start: 1000, end: 61_000.4 }),
    ).resolves.toEqual({ stepSeconds: 5, series });
    expect(lastUrl).toBe("/api/v1/jobs/team-a/train/history?series=throughput&start=1000&end=61000");
    await gateway().history({
      scope: "cluster",
      namespaces: ["a", "b"],
      series: "restarts",
      start: 0,
      end: 1,
    });
    expect(lastUrl).toBe("/api/v1/history?series=restarts&start=0&end=1&namespace=a&namespace=b");
    await gateway().history({ scope: "cluster", namespaces: "all", series: "restarts", start: 0, end: 1 });
    expect(lastUrl).toBe("/api/v1/history?series=restarts&start=0&end=1");
    answer = {
      status: 200,
      body: { stepSeconds: 5, series: [{ name: "x", points: [{ t: 1, value: "NaN" }] }] },
    };
    const error = await refusal(
      gateway().history({ scope: "job", ref: job, series: "loss", start: 0, end: 1 }),
    );
    expect(error.message).toContain("series.0.points.0.value");
  });
});
