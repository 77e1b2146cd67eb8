import type { Labels } from "./exposition-format";

export type Series<T> = { values: readonly string[]; state: T };

/** The series of one metric family, keyed by label values, kept in insertion order. */
export type SeriesStore<T> = {
  /** The series for these labels, created with the initial state on first use. */
  get(labels: Labels | undefined): T;
  delete(labels: Labels | undefined): void;
  clear(): void;
  list(): Series<T>[];
};

function labelList(names: readonly string[]): string {
  return names.length === 0 ? "no labels" : `{${names.join(", ")}}`;
}

function labelValues(input: { metric: string; labelNames: readonly string[]; labels: Labels }): string[] {
  const { metric, labelNames, labels } = input;
  const given = Object.keys(labels);
  const matches =
    given.length === labelNames.length &&
    labelNames.every((name) => Object.hasOwn(labels, name) && typeof labels[name] === "string");
  if (!matches) {
    throw new Error(
      `metric "${metric}": expected ${labelList(labelNames)} with string values, got ${labelList(given)}`,
    );
  }
  return labelNames.map((name) => labels[name] ?? "");
}

/**
 * Creates a store whose label-less family always holds its one series (so it is exported from the start,
 * as the official clients do); `delete` and `clear` put that series back to its initial state.
 */
export function createSeriesStore<T>(input: {
  metric: string;
  labelNames: readonly string[];
  initial: () => T;
}): SeriesStore<T> {
  const { metric, labelNames, initial } = input;
  const series = new Map<string, Series<T>>();
  const seedUnlabelled = () => {
    if (labelNames.length === 0) series.set("[]", { values: [], state: initial() });
  };
  const keyOf = (labels: Labels | undefined) => {
    const values = labelValues({ metric, labelNames, labels: labels ?? {} });
    return { key: JSON.stringify(values), values };
  };
  seedUnlabelled();

  return {
    get(labels) {
      const { key, values } = keyOf(labels);
      const existing = series.get(key);
      if (existing) return existing.state;
      const created = { values, state: initial() };
      series.set(key, created);
      return created.state;
    },
    delete(labels) {
      series.delete(keyOf(labels).key);
      seedUnlabelled();
    },
    clear() {
      series.clear();
      seedUnlabelled();
    },
    list: () => [...series.values()],
  };
}
