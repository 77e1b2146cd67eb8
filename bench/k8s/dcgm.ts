import {
  dcgmScrapeConfig,
  type StandInDcgmExporter,
  startStandInDcgmExporter,
} from "@/server/metrics/testing/dcgm-exporter";
import { startPrometheus, type TestPrometheus } from "@/test/prometheus";
import type { Lifecycle } from "./lifecycle";

/** `--node-signal dcgm`: a stand-in DCGM exporter scraped by a real Prometheus (bench/k8s/node-signal.ts). */
export type BenchDcgm = { exporter: StandInDcgmExporter; prometheus: TestPrometheus; scrapeMs: number };

export async function startBenchDcgm(input: {
  nodes: string[];
  gpusPerNode: number;
  scrapeMs: number;
  life: Lifecycle;
}): Promise<BenchDcgm> {
  const exporter = await startStandInDcgmExporter({ nodes: input.nodes, gpusPerNode: input.gpusPerNode });
  input.life.defer("stop the stand-in DCGM exporter", () => exporter.stop());
  const prometheus = await startPrometheus({ config: dcgmScrapeConfig(exporter.targets, input.scrapeMs) });
  input.life.defer("stop Prometheus", () => prometheus.stop());
  return { exporter, prometheus, scrapeMs: input.scrapeMs };
}
