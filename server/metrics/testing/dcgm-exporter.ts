import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for NVIDIA's DCGM exporter, for tests and bench:k8s: HTTP servers serving, at /metrics, the
 * exporter's text format, each for up to `nodesPerTarget` nodes' GPUs (a real cluster runs one exporter per
 * node, scraped in parallel; each series carries its node in the `Hostname` label either way, which is all
 * the operator reads; one target for thousands of nodes would make each scrape far longer than a real
 * one). Every GPU has `DCGM_FI_DEV_XID_ERRORS` (0 until an Xid is set, as the exporter's default counters
 * have it); `set` changes any series. The real Prometheus under test scrapes them.
 */
export type StandInDcgmExporter = {
  /** host:port of each server, for a scrape config's static targets. */
  targets: string[];
  /** Sets a GPU's Xid (0: none), as the exporter reports the last one with its err_code / err_msg. */
  setXid(node: string, gpu: number, xid: number): void;
  set(series: SeriesValue): void;
  stop(): Promise<void>;
};

export const XID_METRIC = "DCGM_FI_DEV_XID_ERRORS";
const HELP: Record<string, string> = {
  [XID_METRIC]: "Value of the last XID error encountered.",
  DCGM_EXP_GPU_HEALTH_STATUS: "GPU health status from DCGM health watches.",
  DCGM_FI_DEV_ROW_REMAP_FAILURE: "Whether remapping of rows has failed",
};

export type SeriesValue = {
  node: string;
  gpu: number;
  metric: string;
  value: number;
  /** Labels beside the exporter's own (`health_watch`, …). */
  labels?: Record<string, string>;
};

type Sample = { labels: Record<string, string>; value: number };

const escapeLabel = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function gpuLabels(node: string, gpu: number, index: number): Record<string, string> {
  const hex = (index * 16 + gpu).toString(16).padStart(8, "0");
  return {
    gpu: String(gpu),
    UUID: `GPU-${hex}-0000-0000-0000-000000000000`,
    pci_bus_id: `00000000:${(gpu + 7).toString(16).padStart(2, "0").toUpperCase()}:00.0`,
    device: `nvidia${gpu}`,
    modelName: "NVIDIA H100 80GB HBM3",
    Hostname: node,
  };
}

type Shard = {
  metrics: Map<string, Map<string, Sample>>;
  rendered: string | null;
  server: Server;
};

function render(metrics: Shard["metrics"]): string {
  const lines: string[] = [];
  for (const [metric, series] of metrics) {
    lines.push(`# HELP ${metric} ${HELP[metric] ?? metric}`, `# TYPE ${metric} gauge`);
    for (const { labels, value } of series.values()) {
      const text = Object.entries(labels)
        .map(([key, label]) => `${key}="${escapeLabel(label)}"`)
        .join(",");
      lines.push(`${metric}{${text}} ${value}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

async function startShard(): Promise<Shard> {
  const shard: Shard = { metrics: new Map(), rendered: null, server: createServer() };
  shard.server.on("request", (req, res) => {
    if (req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    // Rendered again only after a change: a shard's hundreds of GPUs are scraped every second.
    shard.rendered ??= render(shard.metrics);
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(shard.rendered);
  });
  await new Promise<void>((resolve) => shard.server.listen(0, "127.0.0.1", resolve));
  return shard;
}

export async function startStandInDcgmExporter(opts: {
  nodes: readonly string[];
  gpusPerNode: number;
  /** Default 64. */
  nodesPerTarget?: number;
}): Promise<StandInDcgmExporter> {
  const index = new Map(opts.nodes.map((node, i) => [node, i]));
  const count = Math.max(1, Math.ceil(opts.nodes.length / (opts.nodesPerTarget ?? 64)));
  const shards = await Promise.all(Array.from({ length: count }, startShard));
  const shardOf = (node: string) => shards[(index.get(node) ?? 0) % count] as Shard;
  const set = ({ node, gpu, metric, value, labels = {} }: SeriesValue) => {
    const shard = shardOf(node);
    shard.rendered = null;
    const series = shard.metrics.get(metric) ?? new Map<string, Sample>();
    shard.metrics.set(metric, series);
    const key = `${node}|${gpu}|${JSON.stringify(labels)}`;
    series.set(key, { labels: { ...gpuLabels(node, gpu, index.get(node) ?? 0), ...labels }, value });
  };
  const setXid = (node: string, gpu: number, xid: number) => {
    const series = shardOf(node).metrics.get(XID_METRIC);
    for (const key of [...(series?.keys() ?? [])]) if (key.startsWith(`${node}|${gpu}|`)) series?.delete(key);
    const message = xid === 0 ? "No Error" : `Xid ${xid}`;
    set({ node, gpu, metric: XID_METRIC, value: xid, labels: { err_code: String(xid), err_msg: message } });
  };
  for (const node of opts.nodes) for (let gpu = 0; gpu < opts.gpusPerNode; gpu += 1) setXid(node, gpu, 0);
  const stopShard = ({ server }: Shard) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    targets: shards.map(({ server }) => `127.0.0.1:${(server.address() as AddressInfo).port}`),
    setXid,
    set,
    stop: async () => {
      await Promise.all(shards.map(stopShard));
    },
  };
}

/** A Prometheus configuration scraping the stand-in's targets every `scrapeMs`. */
export const dcgmScrapeConfig = (targets: readonly string[], scrapeMs: number): string =>
  [
    `global: { scrape_interval: ${scrapeMs}ms, evaluation_interval: ${scrapeMs}ms }`,
    "scrape_configs:",
    "  - job_name: dcgm-exporter",
    `    static_configs: [{ targets: ${JSON.stringify(targets)} }]`,
    "",
  ].join("\n");
