/**
 * One precision per chart: the value axis's ticks at a "nice" step (1, 2 or 5 × 10^k) all written with the
 * step's decimals ("0.50, 0.75" never "0.5, 0.75"), and every value the chart says in a tooltip or in words
 * with one more decimal than its axis, the same for every value of the chart.
 */
export type AxisFormat = {
  ticks: number[];
  domain: [number, number];
  /** The axis's decimals (the tooltip's are one more, at most MAX_DECIMALS). */
  decimals: number;
  tick: (value: number) => string;
  value: (value: number | null | undefined) => string;
};

const MAX_DECIMALS = 6;
const DASH = "—";

const formats = new Map<number, Intl.NumberFormat>();
function fixed(decimals: number): Intl.NumberFormat {
  let format = formats.get(decimals);
  if (!format) {
    format = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
    formats.set(decimals, format);
  }
  return format;
}

/** The smallest of 1, 2, 5 × 10^k at least `raw` (raw > 0). */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const mantissa = [1, 2, 5, 10].find((m) => m * power >= raw * (1 - 1e-9)) ?? 10;
  return mantissa * power;
}

/** The range to cover: the finite values and `from`, widened when flat (a constant still gets an axis). */
function rangeOf(values: readonly number[], from: number | undefined): [number, number] {
  const finite = [...values.filter(Number.isFinite), ...(from === undefined ? [] : [from])];
  if (finite.length === 0) return [0, 1];
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  if (max > min) return [min, max];
  const pad = Math.abs(max) > 0 ? Math.abs(max) / 10 : 1;
  return [from !== undefined && min - pad < from ? min : min - pad, max + pad];
}

const formatValue = (decimals: number) => (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? DASH : fixed(decimals).format(value);

/**
 * Ticks and formats for a value axis over `values` (non-finite ones ignored). `from`: a value the axis must
 * include (0 for counts and throughput); `integer`: values are counts, so the step is at least 1.
 */
export function axisFormat(
  values: readonly number[],
  options: { from?: number; integer?: boolean; count?: number } = {},
): AxisFormat {
  const [min, max] = rangeOf(values, options.from);
  const nice = niceStep((max - min) / (options.count ?? 5));
  const step = options.integer ? Math.max(1, Math.round(nice)) : nice;
  const decimals = Math.min(MAX_DECIMALS, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  const low = Math.floor(min / step + 1e-9) * step;
  const count = Math.round((Math.ceil(max / step - 1e-9) * step - low) / step);
  const ticks = Array.from({ length: count + 1 }, (_, i) => Number((low + i * step).toFixed(decimals)));
  return {
    ticks,
    domain: [ticks[0] ?? min, ticks.at(-1) ?? max],
    decimals,
    tick: (value) => fixed(decimals).format(value),
    value: formatValue(options.integer ? 0 : Math.min(MAX_DECIMALS, decimals + 1)),
  };
}
