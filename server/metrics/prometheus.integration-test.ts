import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createSeededTestDatabase } from "@/test/database";
import { startPrometheus, type TestPrometheus } from "@/test/prometheus";
import { createPrometheusSource, jobSelector } from "./prometheus";

/**
 * Loss and throughput history from a real Prometheus scraping real agents: the local back end lists its
 * agents in a file_sd targets file, Prometheus scrapes them every second, the console's source queries it.
 */
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let prometheus: TestPrometheus;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-metrics" };

beforeAll(async () => {
  database = await createSeededTestDatabase("it_prometheus");
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 2 });
  prometheus = await startPrometheus({ targetsFile: operator.backend.prometheusTargetsFile });
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await operator?.stop();
  await database?.drop();
}, 60_000);

describe("Prometheus metrics source", () => {
  it("quotes label values so a name cannot change the query", () => {
    expect(jobSelector({ namespace: "ns", name: 'a"} or vector(1) #' }, 3)).toBe(
      '{namespace="ns",job_name="a\\"} or vector(1) #",rank="3"}',
    );
  });

  it("returns the job's mean loss, total throughput and one rank's series from scraped agents", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, gpusPerPod: 2 }));
    const source = createPrometheusSource({ url: prometheus.url });
    const metrics = await operator.waitFor(
      "three scrapes with loss and throughput",
      async () => {
        const found = await source.jobMetrics(ref, { windowMs: 120_000, rank: 1 });
        const [jobLoss, rankLoss] = found.loss;
        return (jobLoss?.points.length ?? 0) >= 3 && (rankLoss?.points.length ?? 0) >= 3 ? found : null;
      },
      45_000,
    );
    expect(metrics.loss.map((series) => series.name)).toEqual(["job mean", "rank 1"]);
    expect(metrics.throughput.map((series) => series.name)).toEqual(["job total", "rank 1"]);
    const [total, one] = metrics.throughput;
    // The demo trainer reports ~1,200 samples/s per rank: the job's total is the sum of its two ranks.
    expect(total?.points.at(-1)?.value).toBeGreaterThan(
      one?.points.at(-1)?.value ?? Number.POSITIVE_INFINITY,
    );
    expect(metrics.loss[0]?.points.every((point) => point.value > 0 && point.value < 10)).toBe(true);
  });

  it("says which Prometheus failed and why on a bad query", async () => {
    const source = createPrometheusSource({ url: prometheus.url });
    await expect(source.jobMetrics(ref, { windowMs: -1, rank: null })).rejects.toThrow(prometheus.url);
  });
});
