/**
 * Text helpers for the Prometheus text exposition format 0.0.4: value formatting, escaping, and the name
 * and bucket rules the registry enforces at registration time.
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

/** Label name → value; every series of a family carries exactly the family's label names. */
export type Labels = Record<string, string>;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label names a metric type reserves for itself (`le` carries histogram bucket bounds). */
const RESERVED_LABELS: Record<string, readonly string[]> = { histogram: ["le"] };

/** Suffixes of the series a histogram renders; no other family may use a name ending in them. */
export const HISTOGRAM_SUFFIXES = ["_bucket", "_sum", "_count"] as const;

/** Formats a sample value: `+Inf`, `-Inf`, `NaN`, integers below 1e21 without exponent, else shortest round-trip. */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  // String() already writes integers below 1e21 in full and turns -0 into "0".
  return String(value);
}

/** Escapes a label value: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Escapes HELP text: backslash and line feed (double quotes stay as they are). */
export function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Renders `{a="1",b="2"}` from name/value pairs in the given order; no pairs render as "". */
export function renderLabels(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return "";
  return `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

export type MetricType = "counter" | "gauge" | "histogram";

function validateMetricName(type: MetricType, name: string): void {
  if (!METRIC_NAME.test(name)) {
    throw new Error(`invalid metric name "${name}": must match [a-zA-Z_:][a-zA-Z0-9_:]*`);
  }
  const isTotal = name.endsWith("_total");
  if (type === "counter" && !isTotal) {
    throw new Error(`invalid counter name "${name}": counter names must end in "_total"`);
  }
  if (type !== "counter" && isTotal) {
    throw new Error(`invalid ${type} name "${name}": only counter names may end in "_total"`);
  }
}

function validateLabelName(type: MetricType, name: string): void {
  if (!LABEL_NAME.test(name)) {
    throw new Error(`invalid label name "${name}": must match [a-zA-Z_][a-zA-Z0-9_]*`);
  }
  if (name.startsWith("__")) {
    throw new Error(`invalid label name "${name}": names starting with "__" are reserved`);
  }
  if (RESERVED_LABELS[type]?.includes(name)) {
    throw new Error(`invalid label name "${name}": reserved by the ${type} type`);
  }
}

/** Throws unless the family name, help text and label names are valid for a metric of this type. */
export function validateFamily(input: {
  type: MetricType;
  name: string;
  help: string;
  labelNames: readonly string[];
}): void {
  const { type, name, help, labelNames } = input;
  validateMetricName(type, name);
  if (help.trim() === "") throw new Error(`metric "${name}": help text must not be empty`);
  for (const label of labelNames) validateLabelName(type, label);
  const duplicate = labelNames.find((label, index) => labelNames.indexOf(label) !== index);
  if (duplicate !== undefined) throw new Error(`metric "${name}": label name "${duplicate}" is repeated`);
}

/**
 * Checks histogram bucket upper bounds (strictly increasing, not NaN) and returns the finite ones; a trailing
 * `+Inf` is dropped because the `le="+Inf"` bucket is always rendered.
 */
export function normalizeBuckets(name: string, buckets: readonly number[]): number[] {
  const finite = buckets.at(-1) === Number.POSITIVE_INFINITY ? buckets.slice(0, -1) : [...buckets];
  finite.forEach((bound, index) => {
    const previous = finite[index - 1];
    if (!Number.isFinite(bound)) {
      throw new Error(`histogram "${name}": bucket bound ${formatNumber(bound)} is not a finite number`);
    }
    if (previous !== undefined && bound <= previous) {
      throw new Error(`histogram "${name}": buckets must be strictly increasing (${previous} then ${bound})`);
    }
  });
  return finite;
}
