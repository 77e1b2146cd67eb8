import type { MadeChange } from "./changes";
import type { TabResult } from "./tab";
import type { Viewer } from "./viewers";

/** The run's figures: a table on stdout, then `BENCH tv <json>` as the last line. */
export type RunFigures = {
  ranks: number;
  viewers: Viewer[];
  connectedAtEnd: number;
  changes: MadeChange[];
  /** From the viewers' first frames to the end of the run. */
  spanS: number;
  console: { rssEndMb: number; rssPeakMb: number; cpuS: number };
  /** The bench process's own event-loop delay p99 (its viewers' clocks run on it). */
  benchLoopDelayP99Ms: number;
  loadAverage: number;
  tab: TabResult | null;
  runS: number;
};

/** Nearest-rank percentile; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

type Delays = {
  all: number[];
  quota: number[];
  fault: number[];
  faultFromDetection: number[];
  missed: number;
};

/** Every (viewer, change) pair the viewer's view shows: its delay from the change, or missed. */
function delays(figures: RunFigures): Delays {
  const out: Delays = { all: [], quota: [], fault: [], faultFromDetection: [], missed: 0 };
  for (const made of figures.changes) {
    const watching = figures.viewers.filter((viewer) => made.change.views.includes(viewer.view));
    const seen = watching.flatMap((viewer) => viewer.seen.get(made.change.id) ?? []);
    out.missed += watching.length - seen.length;
    const fromChange = seen.map((at) => at - made.at);
    out.all.push(...fromChange);
    (made.change.kind === "quota" ? out.quota : out.fault).push(...fromChange);
    const detectedAt = made.detectedAt;
    if (detectedAt !== null) out.faultFromDetection.push(...seen.map((at) => at - detectedAt));
  }
  return out;
}

const round = (value: number, places = 0) => (Number.isFinite(value) ? Number(value.toFixed(places)) : null);
const spread = (values: number[]) =>
  values.length === 0
    ? "none"
    : `${round(percentile(values, 0.5))} / ${round(percentile(values, 0.99))} / ${round(Math.max(...values))}`;

const row = (label: string, value: string, target = "") =>
  `${label.padEnd(60)}${value.padStart(18)}  ${target}`;
const met = (ok: boolean) => (ok ? "met" : "MISSED");

function tabRows(tab: TabResult): string[] {
  return [
    row(
      `tab /tv/${tab.view}: JS heap after GC, MB: start / end (${tab.minutes} min)`,
      `${tab.start.heapMb} / ${tab.end.heapMb}`,
    ),
    row("tab heap growth, MB", String(tab.heapGrowthMb)),
    row("tab heap after GC each minute, MB", tab.samples.map((s) => s.heapMb).join(" ")),
    row("tab DOM nodes: start / end", `${tab.start.domNodes} / ${tab.end.domNodes}`),
    row("tab frames per second (SSE messages)", String(tab.framesPerS)),
    row(
      "tab shows 'reconnecting' at the end",
      tab.reconnectingAtEnd ? "yes" : "no",
      met(!tab.reconnectingAtEnd),
    ),
  ];
}

/** The tab's keys of the BENCH line (null without a tab). */
function tabKeys(tab: TabResult | null) {
  return {
    tab_heap_growth_mb: tab?.heapGrowthMb ?? null,
    tab_heap_start_mb: tab?.start.heapMb ?? null,
    tab_heap_end_mb: tab?.end.heapMb ?? null,
    tab_dom_nodes_start: tab?.start.domNodes ?? null,
    tab_dom_nodes_end: tab?.end.domNodes ?? null,
    tab_frames_per_s: tab?.framesPerS ?? null,
    tab_minutes: tab?.minutes ?? 0,
  };
}

export function report(figures: RunFigures): { ok: boolean } {
  const d = delays(figures);
  const count = figures.viewers.length;
  const frames = figures.viewers.reduce((sum, viewer) => sum + viewer.frames, 0);
  const framesPerViewerS = frames / Math.max(1, count) / Math.max(1, figures.spanS);
  const p99 = percentile(d.all, 0.99);
  const tab = figures.tab;
  const row = (label: string, value: string, target = "") =>
    `${label.padEnd(60)}${value.padStart(18)}  ${target}`;
  const met = (ok: boolean) => (ok ? "met" : "MISSED");
  const kinds = (kind: string) => figures.changes.filter((made) => made.change.kind === kind).length;
  const lines = [
    "",
    `TV viewers on one console process: ${count} viewers (jobs and cluster views), a ${figures.ranks}-rank job, ${figures.changes.length} changes (${kinds("quota")} quota, ${kinds("fault")} node faults), ${Math.round(figures.spanS)} s`,
    row(
      "viewers connected at the end",
      `${figures.connectedAtEnd}/${count}`,
      met(figures.connectedAtEnd === count),
    ),
    row("update delay, ms: p50 / p99 / max (all changes)", spread(d.all), `p99 < 1000 ${met(p99 < 1000)}`),
    row("  quota change → cluster view (console path only)", spread(d.quota)),
    row("  node fault → jobs view (operator's detection included)", spread(d.fault)),
    row("  node fault, from the operator's detection → jobs view", spread(d.faultFromDetection)),
    row("(viewer, change) pairs never reflected within 30 s", String(d.missed), met(d.missed === 0)),
    row("frames per viewer per second", framesPerViewerS.toFixed(2)),
    row(
      "console RSS, MB: at the end / peak",
      `${round(figures.console.rssEndMb)} / ${round(figures.console.rssPeakMb)}`,
      `< 500 ${met(figures.console.rssPeakMb < 500)}`,
    ),
    row(
      "console CPU over the run, s (cores on average)",
      `${round(figures.console.cpuS, 1)} (${(figures.console.cpuS / Math.max(1, figures.spanS)).toFixed(2)})`,
    ),
    row("bench process event-loop delay p99, ms (its clocks)", String(round(figures.benchLoopDelayP99Ms, 1))),
    row("machine load average (1 min) at the end, 2 cores shared", figures.loadAverage.toFixed(2)),
  ];
  if (tab) lines.push(...tabRows(tab));
  console.log(lines.join("\n"));
  const bench = {
    viewers: figures.connectedAtEnd,
    viewers_opened: count,
    update_delay_p50_ms: round(percentile(d.all, 0.5)),
    update_delay_p99_ms: round(p99),
    update_delay_max_ms: round(Math.max(...d.all)),
    quota_delay_p99_ms: round(percentile(d.quota, 0.99)),
    fault_delay_p99_ms: round(percentile(d.fault, 0.99)),
    fault_from_detection_p99_ms: round(percentile(d.faultFromDetection, 0.99)),
    missed_updates: d.missed,
    changes: figures.changes.length,
    frames_per_viewer_per_s: round(framesPerViewerS, 2),
    console_rss_mb: round(figures.console.rssEndMb),
    console_rss_peak_mb: round(figures.console.rssPeakMb),
    console_cpu_s: round(figures.console.cpuS, 1),
    ...tabKeys(tab),
    ranks: figures.ranks,
    span_s: Math.round(figures.spanS),
    load_average: round(figures.loadAverage, 2),
    run_s: figures.runS,
  };
  console.log(`BENCH tv ${JSON.stringify(bench)}`);
  return { ok: figures.connectedAtEnd === count && d.all.length > 0 };
}
