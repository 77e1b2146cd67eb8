import {
  escapeHelp,
  formatNumber,
  HISTOGRAM_SUFFIXES,
  type Labels,
  type MetricType,
  normalizeBuckets,
  renderLabels,
  validateFamily,
} from "./exposition-format";
import { createSeriesStore, type Series } from "./exposition-series";

/**
 * A tiny, dependency-free Prometheus metrics registry that renders the text exposition format 0.0.4.
 * Output order is stable: families in registration order, series in the order their label sets first appeared,
 * labels in `labelNames` order. Families without labels export their one series from registration on.
 */

export type { Labels } from "./exposition-format";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export const DEFAULT_LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

export type MetricOptions = { name: string; help: string; labelNames?: readonly string[] };
export type HistogramOptions = MetricOptions & { buckets: readonly number[] };

export type Counter = {
  /** Adds `value` (default 1, must be ≥ 0). Label-less counters take `inc()` or `inc(undefined, n)`. */
  inc(labels?: Labels, value?: number): void;
};

export type Gauge = {
  set(labels: Labels, value: number): void;
  inc(labels?: Labels, value?: number): void;
  dec(labels?: Labels, value?: number): void;
  /** Drops one series (a label-less gauge goes back to 0). */
  remove(labels: Labels): void;
  /** Drops every series (a label-less gauge goes back to 0). */
  reset(): void;
};

export type Histogram = {
  /** Records one observation; NaN is refused. */
  observe(labels: Labels, value: number): void;
};

export type Registry = {
  counter(options: MetricOptions): Counter;
  gauge(options: MetricOptions): Gauge;
  histogram(options: HistogramOptions): Histogram;
  /** The whole registry in text format 0.0.4 (each line ends in "\n"; "" when nothing is registered). */
  render(): string;
};

type Family = { name: string; help: string; type: MetricType; samples(): string[] };
type Value = { value: number };
type Buckets = { counts: number[]; sum: number; count: number };

function labelPairs(labelNames: readonly string[], series: Series<unknown>): [string, string][] {
  return labelNames.map((name, index) => [name, series.values[index] ?? ""]);
}

function sampleLine(name: string, pairs: readonly (readonly [string, string])[], value: number): string {
  return `${name}${renderLabels(pairs)} ${formatNumber(value)}`;
}

function histogramLines(input: { name: string; bounds: readonly number[]; pairs: [string, string][] }) {
  const { name, bounds, pairs } = input;
  return (state: Buckets): string[] => {
    let cumulative = 0;
    const buckets = bounds.map((bound, index) => {
      cumulative += state.counts[index] ?? 0;
      return sampleLine(`${name}_bucket`, [...pairs, ["le", formatNumber(bound)]], cumulative);
    });
    return [
      ...buckets,
      sampleLine(`${name}_bucket`, [...pairs, ["le", "+Inf"]], state.count),
      sampleLine(`${name}_sum`, pairs, state.sum),
      sampleLine(`${name}_count`, pairs, state.count),
    ];
  };
}

function checkNumber(metric: string, value: number, rule: { allowNegative: boolean }): void {
  if (Number.isNaN(value) || (!rule.allowNegative && value < 0)) {
    const expected = rule.allowNegative ? "a number" : "a non-negative number";
    throw new Error(`metric "${metric}": expected ${expected}, got ${formatNumber(value)}`);
  }
}

/** Records the series names a new family renders, refusing names another family already renders. */
function claimSeriesNames(input: { taken: Map<string, string>; family: string; names: readonly string[] }) {
  const { taken, family, names } = input;
  const clash = names.find((name) => taken.has(name));
  if (clash === undefined) {
    for (const name of names) taken.set(name, family);
    return;
  }
  const owner = taken.get(clash);
  if (owner === family) throw new Error(`metric "${family}" is already registered`);
  throw new Error(`metric "${family}" clashes with series "${clash}" of metric "${owner}"`);
}

export function createRegistry(): Registry {
  const families: Family[] = [];
  /** Every series name in use (a histogram uses four) → the family that renders it. */
  const taken = new Map<string, string>();

  function register(input: { type: MetricType; options: MetricOptions }): readonly string[] {
    const { type, options } = input;
    const labelNames = [...(options.labelNames ?? [])];
    validateFamily({ type, name: options.name, help: options.help, labelNames });
    const suffixes = type === "histogram" ? ["", ...HISTOGRAM_SUFFIXES] : [""];
    const names = suffixes.map((suffix) => `${options.name}${suffix}`);
    claimSeriesNames({ taken, family: options.name, names });
    return labelNames;
  }

  function valueFamily(type: "counter" | "gauge", options: MetricOptions) {
    const labelNames = register({ type, options });
    const store = createSeriesStore<Value>({
      metric: options.name,
      labelNames,
      initial: () => ({ value: 0 }),
    });
    const samples = () =>
      store
        .list()
        .map((series) => sampleLine(options.name, labelPairs(labelNames, series), series.state.value));
    families.push({ name: options.name, help: options.help, type, samples });
    return store;
  }

  return {
    counter(options) {
      const store = valueFamily("counter", options);
      return {
        inc(labels, value = 1) {
          checkNumber(options.name, value, { allowNegative: false });
          store.get(labels).value += value;
        },
      };
    },
    gauge(options) {
      const store = valueFamily("gauge", options);
      const add = (labels: Labels | undefined, delta: number) => {
        checkNumber(options.name, delta, { allowNegative: true });
        store.get(labels).value += delta;
      };
      return {
        set(labels, value) {
          store.get(labels).value = value;
        },
        inc: (labels, value = 1) => add(labels, value),
        dec: (labels, value = 1) => add(labels, -value),
        remove: (labels) => store.delete(labels),
        reset: () => store.clear(),
      };
    },
    histogram(options) {
      const labelNames = register({ type: "histogram", options });
      const bounds = normalizeBuckets(options.name, options.buckets);
      const initial = (): Buckets => ({ counts: bounds.map(() => 0), sum: 0, count: 0 });
      const store = createSeriesStore<Buckets>({ metric: options.name, labelNames, initial });
      const samples = () =>
        store.list().flatMap((series) => {
          const lines = histogramLines({ name: options.name, bounds, pairs: labelPairs(labelNames, series) });
          return lines(series.state);
        });
      families.push({ name: options.name, help: options.help, type: "histogram", samples });
      return {
        observe(labels, value) {
          checkNumber(options.name, value, { allowNegative: true });
          const state = store.get(labels);
          const index = bounds.findIndex((bound) => value <= bound);
          if (index >= 0) state.counts[index] = (state.counts[index] ?? 0) + 1;
          state.sum += value;
          state.count += 1;
        },
      };
    },
    render() {
      return families
        .flatMap((family) => [
          `# HELP ${family.name} ${escapeHelp(family.help)}`,
          `# TYPE ${family.name} ${family.type}`,
          ...family.samples(),
        ])
        .map((line) => `${line}\n`)
        .join("");
    },
  };
}
