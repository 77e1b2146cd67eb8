import { HEALTH_STYLE } from "@/components/jobs/health-style";
import type { LogState } from "@/server/domain/log-rules/evaluator";

/**
 * A dry-run's results shaped for the panel: a rule's state over the simulated time as segments of a
 * compact strip (with the same transitions in words for screen readers), and long match lists cut to what
 * a page can show responsively, saying how many were left out.
 */

/** How many matching lines a rule shows; the rest are counted, not drawn. */
export const MAX_SHOWN_MATCHES = 50;

export type StateChange = { at: number; state: LogState; lineNumber: number | null };
export type StateSegment = { state: LogState; from: number; to: number; share: number };

/** The colour of a rule state, as the job page colours rank health. */
export const STATE_COLOR: Readonly<Record<LogState, string>> = {
  WAITING: HEALTH_STYLE.waiting.color,
  HEALTHY: HEALTH_STYLE.healthy.color,
  SLOW: HEALTH_STYLE.slow.color,
  HANGING: HEALTH_STYLE.hanging.color,
  FAULTED: HEALTH_STYLE.faulted.color,
};

/**
 * The rule's states from `start` to `end` (ms) as segments in time order: WAITING until the first change,
 * each state until the next change, the last one to `end`. Shares add up to 1 (zero-length spans drop out).
 */
export function stateSegments(
  changes: readonly StateChange[],
  span: { start: number; end: number },
): StateSegment[] {
  const start = span.start;
  const end = Math.max(span.end, start);
  const total = end - start;
  const ordered = [...changes].sort((a, b) => a.at - b.at);
  const points: Array<{ at: number; state: LogState }> = [{ at: start, state: "WAITING" }];
  for (const change of ordered)
    points.push({ at: Math.min(Math.max(change.at, start), end), state: change.state });
  const segments: StateSegment[] = [];
  points.forEach((point, index) => {
    const to = points[index + 1]?.at ?? end;
    if (to <= point.at) return;
    const last = segments.at(-1);
    if (last && last.state === point.state) {
      last.to = to;
      return;
    }
    segments.push({ state: point.state, from: point.at, to, share: 0 });
  });
  if (segments.length === 0)
    return [{ state: points.at(-1)?.state ?? "WAITING", from: start, to: end, share: 1 }];
  for (const segment of segments)
    segment.share = total > 0 ? (segment.to - segment.from) / total : 1 / segments.length;
  return segments;
}

/** The first `max` items and how many were left out. */
export function capped<T>(
  items: readonly T[],
  max = MAX_SHOWN_MATCHES,
): { shown: readonly T[]; hidden: number } {
  return { shown: items.slice(0, max), hidden: Math.max(0, items.length - max) };
}

/** "+12.5 s" from the dry-run's start: simulated times read better relative to the first line. */
export function offsetText(at: number, start: number): string {
  const seconds = (at - start) / 1000;
  const rounded = Math.abs(seconds) >= 100 ? Math.round(seconds) : Math.round(seconds * 10) / 10;
  return `+${rounded} s`;
}

/** Most severe first: a bucket of a long run shows the worst state it held. */
const SEVERITY: Readonly<Record<LogState, number>> = {
  WAITING: 0,
  HEALTHY: 1,
  SLOW: 2,
  HANGING: 3,
  FAULTED: 4,
};

/**
 * At most `buckets` segments for the strip: a rule that flaps thousands of times is drawn as equal time
 * buckets, each in the worst state it held, so the strip stays a few hundred elements.
 */
export function stripSegments(segments: readonly StateSegment[], buckets = 200): readonly StateSegment[] {
  const first = segments[0];
  const last = segments.at(-1);
  if (segments.length <= buckets || !first || !last) return segments;
  const width = (last.to - first.from) / buckets;
  const out: StateSegment[] = [];
  const cursor = { index: 0 };
  for (let bucket = 0; bucket < buckets; bucket++) {
    const from = first.from + bucket * width;
    const to = bucket === buckets - 1 ? last.to : from + width;
    const worst = worstUntil(segments, cursor, to);
    const previous = out.at(-1);
    if (previous && previous.state === worst) {
      previous.to = to;
      previous.share += 1 / buckets;
    } else out.push({ state: worst, from, to, share: 1 / buckets });
  }
  return out;
}

/** The worst state among the segments from `cursor` that start before `to`; moves past those ending by it. */
function worstUntil(segments: readonly StateSegment[], cursor: { index: number }, to: number): LogState {
  let worst: LogState = "WAITING";
  for (let segment = segments[cursor.index]; segment && segment.from < to; segment = segments[cursor.index]) {
    if (SEVERITY[segment.state] > SEVERITY[worst]) worst = segment.state;
    if (segment.to > to) break;
    cursor.index++;
  }
  return worst;
}

/** One matching line of a rule: where, when (simulated), the value group 1 captured (metric rules). */
export type MatchView = { lineNumber: number; at: number; text: string; value: number | null };
export type RuleRunView = {
  name: string;
  /** The matches the domain kept (it may keep fewer than matched). */
  matches: readonly MatchView[];
  /** How many lines matched in all. */
  matchCount: number;
  changes: readonly StateChange[];
};
export type FaultView = {
  rule: string;
  state: LogState;
  at: number;
  lineNumber: number | null;
  reason: string;
};
/** What the restart policy would do next: a short name and the reason in words. */
export type NextActionView = { action: string; reason: string };
/** A window still open when a running rank's output was read: when the rule fires if no matching line comes. */
export type DeadlineView = { rule: string; at: number };
/** Whose output a dry-run on a running rank read, from when, and whether its rules can fault the job. */
export type LiveRankView = {
  rank: number;
  pod: string;
  localRank: number;
  watched: boolean;
  startedAt: number | null;
  readAt: number;
};
/** A dry-run as the panel draws it: the simulated span, each rule's run, the first fault and what next. */
export type DryRunView = {
  start: number;
  end: number;
  lines: number;
  rules: readonly RuleRunView[];
  fault: FaultView | null;
  nextAction: NextActionView | null;
  /** A running rank's open windows, soonest first (empty for pasted text). */
  deadlines: readonly DeadlineView[];
  /** The running rank read (null: pasted text). */
  live: LiveRankView | null;
  notes: readonly string[];
};

/** "9 s after the output was read": a deadline's distance from the read, as the panel words it. */
export function afterReadText(at: number, readAt: number): string {
  const seconds = Math.max(0, Math.round((at - readAt) / 1000));
  return `${seconds} s after the output was read`;
}
