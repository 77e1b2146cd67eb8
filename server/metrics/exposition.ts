import { Registry } from "prom-client";

/**
 * The operator's and the agent's Prometheus registries: prom-client, one `Registry` per process part (never
 * prom-client's global one) and no default process metrics. Families render in registration order, series
 * in the order their label sets first appeared, labels in the order of that first label object; families
 * without labels export their one series from registration on. prom-client separates families with a blank
 * line, which the text format ignores.
 */

/** The text exposition format 0.0.4 (prom-client's `Registry.PROMETHEUS_CONTENT_TYPE`). */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export const DEFAULT_LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** A prom-client registry with the `render()` our /metrics handlers call. */
export class MetricsRegistry extends Registry {
  /** The whole registry in text format 0.0.4, rendered now (scrape time only). */
  render(): Promise<string> {
    return this.metrics();
  }
}

export function createRegistry(): MetricsRegistry {
  return new MetricsRegistry();
}
