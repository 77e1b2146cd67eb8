import type { JobRef } from "@/server/cluster/types";

/**
 * Loss and throughput history from a real Prometheus that scrapes the agents' `/metrics`
 * (`rebound_agent_rank_loss`, `rebound_agent_rank_throughput`), with the scrape config labelling each target
 * `namespace` and `job_name` (the pod's HPJob label): deploy/prometheus/scrape-config.yaml on Kubernetes,
 * the local back end's file_sd targets file on one machine (README, Metrics).
 */
export type MetricPoint = { t: number; value: number };
export type MetricSeries = { name: string; points: MetricPoint[] };
export type JobMetrics = { loss: MetricSeries[]; throughput: MetricSeries[] };

type RangeResponse = {
  status: "success" | "error";
  error?: string;
  data?: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
};

/** PromQL label matchers accept any string in double quotes; escape what would end it. */
const quote = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

export function jobSelector(ref: JobRef, rank?: number): string {
  const rankMatcher = rank === undefined ? "" : `,rank=${quote(String(rank))}`;
  return `{namespace=${quote(ref.namespace)},job_name=${quote(ref.name)}${rankMatcher}}`;
}

export function createPrometheusSource(opts: { url: string; fetch?: typeof fetch; timeoutMs?: number }) {
  const fetchImpl = opts.fetch ?? fetch;
  const base = opts.url.replace(/\/$/, "");

  const range = async (query: string, window: { start: number; end: number; stepSeconds: number }) => {
    const params = new URLSearchParams({
      query,
      start: String(window.start / 1000),
      end: String(window.end / 1000),
      step: String(window.stepSeconds),
    });
    const response = await fetchImpl(`${base}/api/v1/query_range?${params}`, {
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
    const body = (await response.json()) as RangeResponse;
    if (body.status !== "success") throw new Error(`Prometheus at ${base}: ${body.error ?? response.status}`);
    const first = body.data?.result[0];
    return (first?.values ?? [])
      .map(([t, value]) => ({ t: t * 1000, value: Number(value) }))
      .filter((point) => Number.isFinite(point.value));
  };

  return {
    kind: "prometheus" as const,
    /** The job's mean loss and total throughput over the window, and one rank's when asked. */
    async jobMetrics(
      ref: JobRef,
      query: { windowMs: number; rank: number | null; now?: number },
    ): Promise<JobMetrics> {
      const end = query.now ?? Date.now();
      const window = {
        start: end - query.windowMs,
        end,
        stepSeconds: Math.max(1, Math.round(query.windowMs / 1000 / 300)),
      };
      const job = jobSelector(ref);
      const rank = query.rank === null ? null : jobSelector(ref, query.rank);
      const [loss, throughput, rankLoss, rankThroughput] = await Promise.all([
        range(`avg(rebound_agent_rank_loss${job})`, window),
        range(`sum(rebound_agent_rank_throughput${job})`, window),
        rank ? range(`max(rebound_agent_rank_loss${rank})`, window) : null,
        rank ? range(`max(rebound_agent_rank_throughput${rank})`, window) : null,
      ]);
      const named = (name: string, points: MetricPoint[] | null) => (points ? [{ name, points }] : []);
      return {
        loss: [{ name: "job mean", points: loss }, ...named(`rank ${query.rank}`, rankLoss)],
        throughput: [
          { name: "job total", points: throughput },
          ...named(`rank ${query.rank}`, rankThroughput),
        ],
      };
    },
  };
}

export type PrometheusSource = ReturnType<typeof createPrometheusSource>;
