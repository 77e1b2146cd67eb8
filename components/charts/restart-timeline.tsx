"use client";

import { useMemo, useState } from "react";
import { healthTextColor } from "@/components/jobs/health-style";
import { EmptyState } from "@/components/ui/query-state";
import type { JobTotals, TimelineEntry } from "@/server/domain/jobs/view-model";
import styles from "./charts.module.css";
import { entryLosses, timelineRows } from "./restart-timeline-model";
import { type ShadowTimelineEntry, ShadowVerdictList } from "./shadow-verdict-list";
import { chartHeight, TimelineChart } from "./timeline-chart";
import { entrySentence } from "./timeline-text";
import { TotalsStrip } from "./totals-strip";
import { usePacedValue } from "./use-paced-value";
import { useStableValue } from "./use-stable-value";

export type RestartTimelineProps = {
  entries: readonly TimelineEntry[];
  totals: JobTotals;
  /** Epoch ms; pending recoveries run to it (pass the page's 1 Hz clock). */
  now: number;
  /** What a shadow rule set would have done: listed as its own kind of entry, never as a restart. */
  shadow?: readonly ShadowTimelineEntry[];
};

/** Changes exactly when a chart row would: an entry added, resolved or re-timed. */
function entriesKey(entries: readonly TimelineEntry[]): string {
  return entries
    .map(
      (e) =>
        `${e.id}:${e.outcome}:${e.faultAt}:${e.detectedAt}:${e.recoveredAt}:${e.progressAt}:${e.resumeStep}:${e.resumedAt}:${e.count}:${e.waitMs}`,
    )
    .join("|");
}

function ChartKey() {
  return (
    <div className={styles.key} aria-hidden="true">
      {/* Text in the theme's health colours (AA on either theme); the chart's spans use SPAN_COLORS. */}
      <span style={{ color: healthTextColor("hanging") }}>■ Stalled</span>
      <span style={{ color: healthTextColor("slow") }}>■ Detection</span>
      <span style={{ color: healthTextColor("waiting") }}>▤ Back-off wait</span>
      <span style={{ color: healthTextColor("restarting") }}>■ Recovery</span>
      <span style={{ color: healthTextColor("restarting") }}>▨ Recovering</span>
      <span style={{ color: healthTextColor("faulted") }}>■ Failed</span>
      <span style={{ color: healthTextColor("waiting") }}>■ Catching up</span>
    </div>
  );
}

/**
 * The job's faults on a time axis, one bar per fault: stalled (the job's last progress → the fault, a
 * hang's window), detection (fault → detected), recovery (detected → recovered, or → now while pending),
 * catching up (recovered → training back at the step it had reached), labelled by action and reason, with
 * the totals above; each entry says what it cost the training (lost time and steps, server/domain/goodput).
 * The chart is aria-hidden; the same entries are an ordered list, always read by screen readers and shown
 * to everyone with the "Show as list" toggle. Entries are keyed by id, so updates never reshuffle them.
 * A shadow rule set's verdicts ("would have restarted …") follow as entries of their own kind, always
 * listed, dashed, never drawn as bars: nothing was restarted.
 *
 * Cost per 1 Hz tick: the chart's data is kept identical while no entry changed and none is open, so
 * recharts re-renders only when something moved, and then in a task of its own (use-paced-value.ts).
 */
export function RestartTimeline({ entries, totals, now, shadow = [] }: RestartTimelineProps) {
  const [asList, setAsList] = useState(false);
  const stable = useStableValue(entries, entriesKey(entries));
  // Something still grows with the clock: a recovery under way, or training not back yet.
  const open = useMemo(
    () =>
      stable.some((entry) => entry.outcome !== "recovered") ||
      [...entryLosses(stable, 0).values()].some((loss) => loss.open),
    [stable],
  );
  const chartNow = open ? now : 0;
  const chart = useMemo(
    () => ({ ...timelineRows(stable, { now: chartNow }), now: chartNow }),
    [stable, chartNow],
  );
  const pacedChart = usePacedValue(chart);
  const ordered = useMemo(() => [...stable].sort((a, b) => a.faultAt - b.faultAt), [stable]);
  const losses = useMemo(() => entryLosses(stable, now), [stable, now]);
  const empty = entries.length === 0;
  return (
    <div className={styles.timeline}>
      <div className={styles.timelineHeader}>
        <TotalsStrip totals={totals} />
        {empty ? null : (
          <button
            type="button"
            className={styles.toggle}
            aria-pressed={asList}
            onClick={() => setAsList((v) => !v)}
          >
            {asList ? "Show chart" : "Show as list"}
          </button>
        )}
      </div>
      {empty ? <EmptyState>No faults so far.</EmptyState> : null}
      {empty || asList ? null : (
        <>
          {pacedChart ? (
            <TimelineChart chart={pacedChart} />
          ) : (
            <div style={{ height: chartHeight(chart.rows.length) }} />
          )}
          <ChartKey />
        </>
      )}
      <ol className={asList ? styles.entryList : styles.srOnly} aria-label="Faults and recoveries">
        {ordered.map((entry) => (
          <li key={entry.id}>{entrySentence(entry, now, losses.get(entry.id))}</li>
        ))}
      </ol>
      <ShadowVerdictList entries={shadow} />
    </div>
  );
}
