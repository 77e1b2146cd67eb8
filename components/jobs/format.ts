/**
 * Display formatting for the job views. lib/format.ts covers quota amounts only; these cover durations,
 * ages, measurements and rank lists. Formatters are created once (en-US, so server and browser render the
 * same text): the table formats thousands of values a second and Intl constructors are the slow part.
 */

const DASH = "—";
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const decimals = new Map<string, Intl.NumberFormat>();
function numberFormat(maxFractionDigits: number, minFractionDigits = 0): Intl.NumberFormat {
  const key = `${maxFractionDigits}/${minFractionDigits}`;
  let format = decimals.get(key);
  if (!format) {
    format = new Intl.NumberFormat("en-US", {
      maximumFractionDigits: maxFractionDigits,
      minimumFractionDigits: minFractionDigits,
    });
    decimals.set(key, format);
  }
  return format;
}
const percentFormat = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
const clockFormat = new Intl.DateTimeFormat("en-GB", {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/**
 * A measurement: "1,234.57", "—" for null, "NaN" and "∞" as such (a NaN loss is a finding, not a blank).
 * `fixed`: always that many decimals, so a column's figures line up ("1,237.0" under "1,208.8").
 */
export function formatNumber(value: number | null | undefined, maxFractionDigits = 2, fixed = false): string {
  if (value === null || value === undefined) return DASH;
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  return numberFormat(maxFractionDigits, fixed ? maxFractionDigits : 0).format(value);
}

/** A loss: 4 significant decimals for small values, fewer for large. */
export function formatLoss(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value) || Math.abs(value) >= 100) {
    return formatNumber(value, 2);
  }
  return formatNumber(value, 4);
}

/** A duration: "850 ms", "1.2 s", "42 s", "2 min 5 s", "1 h 3 min", "2 d 4 h"; "—" for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH;
  const abs = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (abs < SECOND) return `${sign}${Math.round(abs)} ms`;
  if (abs < 10 * SECOND) return `${sign}${numberFormat(1).format(abs / SECOND)} s`;
  if (abs < MINUTE) return `${sign}${Math.floor(abs / SECOND)} s`;
  if (abs < HOUR) return `${sign}${twoUnits(abs, MINUTE, SECOND, ["min", "s"])}`;
  if (abs < DAY) return `${sign}${twoUnits(abs, HOUR, MINUTE, ["h", "min"])}`;
  return `${sign}${twoUnits(abs, DAY, HOUR, ["d", "h"])}`;
}

function twoUnits(ms: number, big: number, small: number, [bigName, smallName]: [string, string]): string {
  const whole = Math.floor(ms / big);
  const rest = Math.floor((ms - whole * big) / small);
  return rest === 0 ? `${whole} ${bigName}` : `${whole} ${bigName} ${rest} ${smallName}`;
}

/** How long ago: "just now", "3 s ago", "2 min ago", "1 h ago", "2 d ago"; "—" for null. */
export function formatAgo(at: number | null | undefined, now: number): string {
  if (at === null || at === undefined || !Number.isFinite(at)) return DASH;
  const ms = Math.max(0, now - at);
  if (ms < SECOND) return "just now";
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)} s ago`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h ago`;
  return `${Math.floor(ms / DAY)} d ago`;
}

/** A fraction as a percentage: 0.9876 → "98.8%"; "—" for null. */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return DASH;
  return percentFormat.format(fraction);
}

/** Wall-clock time of an epoch-ms instant, "14:03:27" (24 h, the viewer's time zone). */
export function formatClock(at: number): string {
  return Number.isFinite(at) ? clockFormat.format(at) : DASH;
}

/**
 * Ranks as ranges: [0,1,2,3,7,9,10] → "0–3, 7, 9–10". Long lists stop after `maxParts` ranges with
 * "… (+N ranks)", so a full-job fault of 2,048 ranks is one short line.
 */
export function formatRankList(ranks: readonly number[], maxParts = 6): string {
  const sorted = [...new Set(ranks)].filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return DASH;
  const parts: Array<[number, number]> = [];
  for (const rank of sorted) {
    const last = parts[parts.length - 1];
    if (last && rank === last[1] + 1) last[1] = rank;
    else parts.push([rank, rank]);
  }
  const shown = parts.slice(0, maxParts).map(([from, to]) => (from === to ? `${from}` : `${from}–${to}`));
  const hidden = parts.slice(maxParts).reduce((sum, [from, to]) => sum + to - from + 1, 0);
  return hidden > 0 ? `${shown.join(", ")}, … (+${hidden} ranks)` : shown.join(", ");
}
