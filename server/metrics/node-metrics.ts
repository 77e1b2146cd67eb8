import type { NodeMetric } from "@/server/domain/node-health/evaluate";
import type { Logger } from "@/server/log";
import type { PrometheusClient, PromSeries } from "./prometheus-api";

/**
 * Per-node metric facts for the node-signal table (server/domain/node-health), read from the Prometheus the
 * console already reads: every `intervalMs` one instant query for the table's metric names, only series
 * that are not 0 (DCGM's "no Xid" and "health passed" are 0, and a row never matches 0), so the answer
 * stays small on a healthy cluster however many GPUs it has. A series belongs to the node its host label
 * names: the DCGM exporter's `Hostname` (`hostname` in its newer releases), which it sets from NODE_NAME,
 * the chart's spec.nodeName. Listeners hear which nodes' facts changed; while Prometheus does not answer,
 * the last answer stands (a Prometheus outage is not every node turning healthy), said once in the log.
 */
export type NodeMetricsFeed = {
  /** The node's non-zero series as last read; undefined: none. */
  get(node: string): readonly NodeMetric[] | undefined;
  onChange(listener: (nodes: readonly string[]) => void): () => void;
  start(): void;
  stop(): void;
};

export const DEFAULT_HOST_LABELS = ["Hostname", "hostname"] as const;
/** Labels that tell one series of a metric on a node from another: the GPU, its MIG instance, the watch. */
const SERIES_LABELS = ["gpu", "GPU_I_ID", "health_watch"] as const;

export function metricsQuery(names: readonly string[]): string {
  // The names are the table's, checked as metric names by its schema: nothing to escape in the regex.
  return `{__name__=~"${names.join("|")}"} != 0`;
}

const seriesOf = (labels: Record<string, string>): string => {
  const parts = SERIES_LABELS.flatMap((key) => (labels[key] !== undefined ? [`${key}=${labels[key]}`] : []));
  if (parts.length > 0) return parts.join(",");
  const uuid = labels.UUID ?? labels.uuid;
  return uuid ? `UUID=${uuid}` : "";
};

/** The answer grouped by node; series without a host label are skipped. */
export function nodeMetricsOf(
  answer: readonly PromSeries[],
  hostLabels: readonly string[] = DEFAULT_HOST_LABELS,
): Map<string, NodeMetric[]> {
  const byNode = new Map<string, NodeMetric[]>();
  for (const { labels, samples } of answer) {
    const sample = samples.at(-1);
    const node = hostLabels.map((key) => labels[key]).find((value) => value);
    const name = labels.__name__;
    if (!sample || !node || !name) continue;
    const list = byNode.get(node) ?? [];
    list.push({ name, series: seriesOf(labels), labels, value: sample.value });
    byNode.set(node, list);
  }
  for (const list of byNode.values())
    list.sort((a, b) => `${a.name}{${a.series}}`.localeCompare(`${b.name}{${b.series}}`));
  return byNode;
}

/** What makes a node's facts differ: the series and their values, and the Xid's message. */
const fingerprintOf = (metrics: readonly NodeMetric[] | undefined) =>
  (metrics ?? []).map((m) => `${m.name}{${m.series}}=${m.value}|${m.labels.err_msg ?? ""}`).join(";");

export function createNodeMetricsPoller(opts: {
  client: PrometheusClient;
  /**
   * The metric names to read (default-signals.ts: metricNamesOf(table)); a function is asked at each poll,
   * for a table that can change while the operator runs. None: no query.
   */
  metrics: readonly string[] | (() => readonly string[]);
  intervalMs: number;
  log: Logger;
  hostLabels?: readonly string[];
}): NodeMetricsFeed & { poll(): Promise<void> } {
  const { client, log } = opts;
  const names = typeof opts.metrics === "function" ? opts.metrics : () => opts.metrics as readonly string[];
  let current = new Map<string, NodeMetric[]>();
  const listeners = new Set<(nodes: readonly string[]) => void>();
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let failing: string | null = null;

  const answered = (answer: PromSeries[]) => {
    if (failing !== null) log.info("node metrics: Prometheus answers again", { url: client.url });
    failing = null;
    return answer;
  };
  const failed = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    if (failing === null)
      log.warn("node metrics: Prometheus does not answer; keeping the last facts", { reason });
    failing = reason;
    return null;
  };
  /** The answer, or null when Prometheus did not give one (said once, until it answers again). */
  const read = (metrics: readonly string[]): Promise<PromSeries[] | null> =>
    (metrics.length > 0 ? client.instant(metricsQuery(metrics)) : Promise.resolve([])).then(answered, failed);

  const poll = async () => {
    const answer = await read(names());
    if (!answer) return;
    const next = nodeMetricsOf(answer, opts.hostLabels);
    const changed = [...new Set([...current.keys(), ...next.keys()])].filter(
      (node) => fingerprintOf(current.get(node)) !== fingerprintOf(next.get(node)),
    );
    current = next;
    if (changed.length > 0) for (const listener of listeners) listener(changed);
  };

  const loop = async () => {
    if (!running) return;
    const began = Date.now();
    await poll();
    if (running) timer = setTimeout(loop, Math.max(0, opts.intervalMs - (Date.now() - began)));
  };

  return {
    poll,
    get: (node) => current.get(node),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      if (running) return;
      running = true;
      void loop();
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
