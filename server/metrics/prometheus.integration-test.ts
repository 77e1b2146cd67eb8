import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyJobSeriesSchema } from "@/server/domain/operator-api/contract";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import { createSeededTestDatabase } from "@/test/database";
import { startPrometheus, type TestPrometheus } from "@/test/prometheus";
import { createEmbeddedSource } from "./embedded";
import { createPrometheusMetricsSource } from "./prometheus";
import type { MetricsResult } from "./series";

/**
 * Both metrics sources on a real stack: a real Prometheus scraping, every second, the local back end's real
 * agents (file_sd targets) and the real operator's /metrics over HTTP; and the operator's embedded history
 * read through its HTTP API by the console's gateway. A crash is injected into a real rank; then Prometheus
 * is stopped and every call must answer "unavailable" at once, never throw.
 */
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let server: Server;
let operatorUrl: string;
let prometheus: TestPrometheus;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-metrics" };
const TOKEN = "metrics-test-token";

beforeAll(async () => {
  database = await createSeededTestDatabase("it_prometheus");
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 2 });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  operatorUrl = `http://${host}`;
  prometheus = await startPrometheus({ targetsFile: operator.backend.prometheusTargetsFile, operator: host });
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  server?.close();
  await operator?.stop();
  await database?.drop();
}, 60_000);

const lastMinutes = (minutes: number) => ({ start: Date.now() - minutes * 60_000, end: Date.now() });
const points = (result: MetricsResult, name?: string) =>
  result.status === "ok"
    ? (result.series.find((series) => name === undefined || series.name === name)?.points ?? [])
    : [];

async function until(what: string, probe: () => Promise<MetricsResult | null>) {
  return operator.waitFor(what, probe, 60_000);
}

describe("metrics from a real Prometheus and from the operator's embedded history", () => {
  it("charts the demo job's throughput, loss, ranks and output age from scraped agents", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, gpusPerPod: 2 }));
    const source = createPrometheusMetricsSource({ url: prometheus.url });
    const throughput = await until("three scrapes of throughput", async () => {
      const result = await source.job(ref, "throughput", lastMinutes(2), { rank: 1 });
      const total = points(result, "job total");
      const one = points(result, "rank 1");
      // Both ranks scraped: the job's total is above one rank's.
      const both = (total.at(-1)?.value ?? 0) > (one.at(-1)?.value ?? Number.POSITIVE_INFINITY);
      return total.length >= 3 && one.length >= 3 && both ? result : null;
    });
    expect(throughput.status === "ok" && throughput.series.map((series) => series.name)).toEqual([
      "job total",
      "rank 1",
    ]);
    // The demo trainer reports ~1,200 samples/s per rank: the job's total is the sum of its two ranks.
    const total = points(throughput, "job total").at(-1)?.value ?? 0;
    const one = points(throughput, "rank 1").at(-1)?.value ?? Number.POSITIVE_INFINITY;
    expect(total).toBeGreaterThan(one);
    const loss = await source.job(ref, "loss", lastMinutes(2));
    expect(points(loss).length).toBeGreaterThan(0);
    expect(points(loss).every((point) => point.value > 0 && point.value < 10)).toBe(true);
    const ranks = await source.job(ref, "ranks", lastMinutes(2));
    expect(points(ranks, "total").at(-1)?.value).toBe(2);
    const age = await source.job(ref, "heartbeat_age", lastMinutes(2));
    expect(points(age).at(-1)?.value).toBeLessThan(5);
  }, 90_000);

  it("after an injected crash, has the seven operator series, the restart and its latencies", async () => {
    const rank = operator.live(ref)?.pods[0]?.ranks.find((candidate) => candidate.rank === 1);
    expect(rank?.pid).toBeTypeOf("number");
    process.kill(rank?.pid ?? 0, "SIGKILL");
    const source = createPrometheusMetricsSource({ url: prometheus.url });
    const restarts = await until("the restart scraped", async () => {
      const result = await source.job(ref, "restarts", lastMinutes(5));
      return (points(result, "PLR").at(-1)?.value ?? 0) >= 1 ? result : null;
    });
    expect(restarts.status === "ok" && restarts.series.map((series) => series.name)).toEqual(["PLR"]);
    const detection = await source.job(ref, "detection_latency", lastMinutes(5));
    const restart = await source.job(ref, "restart_latency", lastMinutes(5));
    expect(points(detection).length).toBeGreaterThan(0);
    expect(points(detection).every((point) => point.value >= 0 && point.value < 5)).toBe(true);
    expect(points(restart).length).toBeGreaterThan(0);
    expect(points(restart).every((point) => point.value > 0 && point.value < 30)).toBe(true);
    const families = await source.client.instant(
      'count by (__name__) ({__name__=~"hyperpod_training_operator_jobs_.+",namespace="hyperpod-ns-llm-research"})',
    );
    const names = new Set(families.map((series) => series.labels.__name__));
    for (const name of [
      "created_total",
      "deleted_total",
      "successful_total",
      "failed_total",
      "restarted_total",
      "restart_latency_count",
      "fault_detection_latency_count",
    ])
      expect(names).toContain(`hyperpod_training_operator_jobs_${name}`);
    const cluster = await source.cluster("restarts", lastMinutes(5), { namespaces: [ref.namespace] });
    expect(points(cluster, "PLR").at(-1)?.value).toBeGreaterThanOrEqual(1);
    const elsewhere = await source.cluster("restarts", lastMinutes(5), {
      namespaces: ["hyperpod-ns-vision"],
    });
    expect(elsewhere).toEqual({ status: "ok", source: "prometheus", series: [] });
  }, 90_000);

  it("serves the same job from the operator's embedded history through the console's gateway", async () => {
    const gateway = createOperatorSource({ baseUrl: operatorUrl, mode: "local", token: () => TOKEN });
    const source = createEmbeddedSource(async () => gateway);
    // One sample per 2 s: wait for four.
    const throughput = await until("four samples of the job's throughput", async () => {
      const result = await source.job(ref, "throughput", lastMinutes(2));
      return points(result, "job total").length >= 4 ? result : null;
    });
    expect(points(throughput, "job total").every((point) => point.value > 0)).toBe(true);
    expect(points(await source.job(ref, "restarts", lastMinutes(5)), "PLR").at(-1)?.value).toBe(1);
    expect(points(await source.job(ref, "restart_latency", lastMinutes(5)))).toHaveLength(1);
    expect(
      points(await source.cluster("throughput", lastMinutes(2), { namespaces: "all" })).length,
    ).toBeGreaterThan(3);
    const unknown = await source.job({ ...ref, name: "no-such-job" }, "loss", lastMinutes(2));
    expect(unknown).toEqual({
      status: "unavailable",
      source: "embedded",
      reason: `no metrics history of job ${ref.namespace}/no-such-job in this operator`,
    });
    const ask = (query: string) =>
      fetch(`${operatorUrl}/api/v1/jobs/${ref.namespace}/${ref.name}/history?${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
    expect((await ask("series=loss&start=2000&end=1000")).status).toBe(400);
    expect((await ask(`series=loss&start=0&end=${2 * 86_400_000}`)).status).toBe(400);
    expect((await ask("series=bogus&start=0&end=1000")).status).toBe(400);
    const refused = createEmbeddedSource(async () =>
      createOperatorSource({ baseUrl: operatorUrl, mode: "local", token: () => "wrong" }),
    );
    expect((await refused.job(ref, "loss", lastMinutes(2))).status).toBe("unavailable");
  }, 90_000);

  it("answers unavailable, promptly and without throwing, once Prometheus is stopped", async () => {
    const source = createPrometheusMetricsSource({ url: prometheus.url, timeoutMs: 2000 });
    expect((await source.job(ref, "throughput", lastMinutes(1))).status).toBe("ok");
    await prometheus.stop();
    const started = Date.now();
    const results = await Promise.all([
      ...historyJobSeriesSchema.options.map((series) => source.job(ref, series, lastMinutes(5))),
      source.cluster("throughput", lastMinutes(5), { namespaces: "all" }),
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    for (const result of results) {
      expect(result.status).toBe("unavailable");
      expect(result.status === "unavailable" && result.reason).toContain(
        `Prometheus at ${prometheus.url} does not answer`,
      );
    }
  });
});
