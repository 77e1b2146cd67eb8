/**
 * The storage of the operator's embedded history (history.ts): fixed-size rings of (time, value) in typed
 * arrays, so a series' memory is fixed when it is created, and the averaging of points to a chart's step.
 */
export type Point = { t: number; value: number };

/** The newest `capacity` points pushed, oldest first; pushing past capacity overwrites the oldest. */
export class Ring {
  private readonly times: Float64Array;
  private readonly values: Float64Array;
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.times = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(t: number, value: number): void {
    this.times[this.next] = t;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** The oldest point's time (undefined when empty). */
  oldest(): number | undefined {
    if (this.count === 0) return undefined;
    return this.times[(this.next - this.count + this.capacity) % this.capacity];
  }

  /** Points with from ≤ t ≤ to, oldest first. */
  between(from: number, to: number): Point[] {
    const points: Point[] = [];
    const first = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) {
      const at = (first + i) % this.capacity;
      const t = this.times[at] ?? 0;
      if (t >= from && t <= to) points.push({ t, value: this.values[at] ?? 0 });
    }
    return points;
  }
}

/**
 * Points averaged to a step, as a Prometheus range query evaluates: one point at each `start + k·step`
 * (k ≥ 0) that has data in the step ending there, `(t − step, t]`, its value the mean of those points.
 * Steps without data give no point (a gap, never a 0).
 */
export function downsample(
  points: readonly Point[],
  window: { start: number; end: number; stepSeconds: number },
): Point[] {
  const stepMs = window.stepSeconds * 1000;
  const buckets = new Map<number, { sum: number; n: number }>();
  for (const point of points) {
    if (point.t < window.start - stepMs || point.t > window.end || !Number.isFinite(point.value)) continue;
    const k = Math.max(0, Math.ceil((point.t - window.start) / stepMs));
    const t = window.start + k * stepMs;
    if (t > window.end + stepMs) continue;
    const bucket = buckets.get(t) ?? { sum: 0, n: 0 };
    bucket.sum += point.value;
    bucket.n += 1;
    buckets.set(t, bucket);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, bucket]) => ({ t, value: bucket.sum / bucket.n }));
}

/**
 * A gauge kept at two resolutions: every sample (`fine`, the recent past) and one mean per `coarseMs`
 * (`coarse`, older history), so a long window stays cheap and a recent one exact.
 */
export class TieredSeries {
  private readonly fine: Ring;
  private readonly coarse: Ring;
  private bucket: { start: number; sum: number; n: number } | null = null;

  constructor(private readonly limits: { finePoints: number; coarsePoints: number; coarseMs: number }) {
    this.fine = new Ring(limits.finePoints);
    this.coarse = new Ring(limits.coarsePoints);
  }

  push(t: number, value: number): void {
    this.fine.push(t, value);
    const start = Math.floor(t / this.limits.coarseMs) * this.limits.coarseMs;
    if (this.bucket && this.bucket.start !== start) {
      this.coarse.push(this.bucket.start, this.bucket.sum / this.bucket.n);
      this.bucket = null;
    }
    this.bucket ??= { start, sum: 0, n: 0 };
    this.bucket.sum += value;
    this.bucket.n += 1;
  }

  /** Points from `from` to `to`: coarse means where the fine ring no longer reaches, then every sample. */
  between(from: number, to: number): Point[] {
    const fineFrom = this.fine.oldest() ?? Number.POSITIVE_INFINITY;
    const older = fineFrom > from ? this.coarse.between(from, Math.min(to, fineFrom - 1)) : [];
    return [...older.filter((point) => point.t < fineFrom), ...this.fine.between(from, to)];
  }
}
