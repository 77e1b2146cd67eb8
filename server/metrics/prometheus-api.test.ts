import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrometheusMetricsSource } from "./prometheus";

/**
 * Answers a real HTTP server on loopback gives in place of Prometheus: the source must read the good one
 * and turn every other into "unavailable" with the reason, never a throw nor a chart of garbage.
 */
let server: Server;
let url: string;
let answer: { status: number; body: string; delayMs?: number } = { status: 200, body: "{}" };
const queries: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => {
      queries.push(new URLSearchParams(text).get("query") ?? "");
      setTimeout(() => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ref = { namespace: "team-a", name: "llama" };
const window = { start: 1_700_000_000_000, end: 1_700_000_600_000 };
const matrix = (values: Array<[number, string]>, metric: Record<string, string> = {}) =>
  JSON.stringify({ status: "success", data: { resultType: "matrix", result: [{ metric, values }] } });

describe("Prometheus answers, validated", () => {
  it("reads a matrix into points (epoch ms), dropping NaN and Inf samples", async () => {
    answer = {
      status: 200,
      body: matrix([
        [1_700_000_010, "1200.5"],
        [1_700_000_015, "NaN"],
        [1_700_000_020, "+Inf"],
        [1_700_000_025, "1190"],
      ]),
    };
    const result = await createPrometheusMetricsSource({ url }).job(ref, "throughput", window);
    expect(result).toEqual({
      status: "ok",
      source: "prometheus",
      series: [
        {
          name: "job total",
          points: [
            { t: 1_700_000_010_000, value: 1200.5 },
            { t: 1_700_000_025_000, value: 1190 },
          ],
        },
      ],
    });
  });

  it("names series by the label the query groups by", async () => {
    answer = { status: 200, body: matrix([[1_700_000_010, "2"]], { restart_type: "PLR" }) };
    const result = await createPrometheusMetricsSource({ url }).job(ref, "restarts", window);
    expect(result.status === "ok" && result.series.map((s) => s.name)).toEqual(["PLR"]);
  });

  it.each([
    ["an HTML page", 200, "<html>proxy login</html>", "not JSON"],
    ["a sample that is not [time, string]", 200, matrix([[1, 2 as unknown as string]]), "cannot read"],
    [
      "a vector for a range query",
      200,
      JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } }),
      "answered a range query with a vector",
    ],
    [
      "Prometheus' own error",
      400,
      JSON.stringify({ status: "error", errorType: "bad_data", error: "parse error at char 3" }),
      "parse error at char 3",
    ],
    ["an unknown status", 200, JSON.stringify({ status: "maybe" }), "cannot read"],
  ])("answers unavailable, with the reason, to %s", async (_what, status, body, reason) => {
    answer = { status, body };
    const result = await createPrometheusMetricsSource({ url }).job(ref, "loss", window);
    expect(result.status).toBe("unavailable");
    expect(result.status === "unavailable" && result.reason).toContain(reason);
    expect(result.status === "unavailable" && result.reason).toContain(url);
  });

  it("gives up after its timeout", async () => {
    answer = { status: 200, body: matrix([]), delayMs: 2000 };
    const started = Date.now();
    const result = await createPrometheusMetricsSource({ url, timeoutMs: 200 }).job(ref, "loss", window);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(result).toMatchObject({
      status: "unavailable",
      reason: expect.stringContaining("no answer within 200 ms"),
    });
  });

  it("answers unavailable at once where nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await createPrometheusMetricsSource({ url: `http://127.0.0.1:${port}` }).cluster(
      "throughput",
      window,
      {
        namespaces: "all",
      },
    );
    expect(result).toMatchObject({ status: "unavailable", reason: expect.stringContaining("ECONNREFUSED") });
  });

  it("asks nothing for an empty namespace scope, and sends quoted label values", async () => {
    queries.length = 0;
    const empty = await createPrometheusMetricsSource({ url }).cluster("throughput", window, {
      namespaces: [],
    });
    expect(empty).toEqual({ status: "ok", source: "prometheus", series: [] });
    expect(queries).toEqual([]);
    answer = { status: 200, body: matrix([]) };
    await createPrometheusMetricsSource({ url }).job({ namespace: "ns", name: 'x"}' }, "loss", window);
    expect(queries).toEqual(['avg(rebound_agent_rank_loss{namespace="ns",job_name="x\\"}"})']);
  });
});
