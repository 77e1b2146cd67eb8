/**
 * Kubernetes resource quantities ("500m", "64Gi", "1.5", "2e3") as numbers in the resource's base unit
 * (cores, bytes, counts), and back for messages.
 */

const SUFFIX: Readonly<Record<string, number>> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** Snaps float noise (0.1 + 0.2) to the nearest whole number or thousandth. */
export function tidy(value: number): number {
  const whole = Math.round(value);
  if (Math.abs(value - whole) < 1e-9) return whole;
  const milli = Math.round(value * 1e3) / 1e3;
  return Math.abs(value - milli) < 1e-9 ? milli : value;
}

/** A Kubernetes quantity (string or number) in base units; null when it is not one. */
export function parseQuantity(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const match = QUANTITY.exec(value.trim());
  if (!match) return null;
  const [, digits = "", exponent, suffix = ""] = match;
  const scale = exponent === undefined ? (SUFFIX[suffix] ?? 1) : 10 ** Number(exponent.slice(1));
  return tidy(Number(digits) * scale);
}

const BINARY: ReadonlyArray<[string, number]> = [
  ["Ei", 2 ** 60],
  ["Pi", 2 ** 50],
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", 2 ** 20],
  ["Ki", 2 ** 10],
];

/** The amount as Kubernetes writes it: memory in the largest whole binary unit, fractions of a core as "500m". */
export function formatQuantity(resource: string, amount: number): string {
  const value = tidy(amount);
  if (resource === "memory" && value > 0) {
    const unit = BINARY.find(([, size]) => value % size === 0);
    if (unit) return `${value / unit[1]}${unit[0]}`;
  }
  if (!Number.isInteger(value) && Number.isInteger(tidy(value * 1e3))) return `${tidy(value * 1e3)}m`;
  return String(value);
}
