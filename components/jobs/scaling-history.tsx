"use client";

import { EmptyState } from "@/components/ui/query-state";
import type { ClusterEvent } from "@/server/cluster/types";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import { formatClock } from "./format";
import {
  REASON_TEXT,
  type ScalingEntry,
  type ScalingRowLike,
  type ScalingSummary,
  scalingSummary,
  sizeSteps,
} from "./scaling-model";

/**
 * An elastic job's scaling (issue 14), beside its restart timeline: target vs actual replicas, the size
 * over time (a step line) and each scaling with its reason. Nothing for a job that is not elastic.
 */
export type ScalingHistoryProps = {
  events: readonly ClusterEvent[];
  elastic?: LiveJob["elastic"];
  /** The scaling history rows, where the page has them (else the operator's events are read). */
  rows?: readonly ScalingRowLike[];
  createdAt: number;
  now: number;
};

const WIDTH = 600;
const HEIGHT = 80;

function SizeChart(props: { summary: ScalingSummary; createdAt: number; now: number }) {
  const { summary } = props;
  const initial = summary.min ?? summary.actual ?? 1;
  const points = sizeSteps(summary.entries, { start: props.createdAt, now: props.now, initial });
  const top = Math.max(summary.max ?? 0, ...points.map((p) => p.size), 1);
  const span = Math.max(1, props.now - props.createdAt);
  const x = (t: number) => ((t - props.createdAt) / span) * WIDTH;
  const y = (size: number) => HEIGHT - 4 - (size / top) * (HEIGHT - 8);
  const [first, ...rest] = points;
  const path = `M${x(first?.t ?? 0).toFixed(1)} ${y(first?.size ?? initial).toFixed(1)}${rest
    .map((p) => ` H${x(p.t).toFixed(1)} V${y(p.size).toFixed(1)}`)
    .join("")}`;
  const sizes = points.map((p) => p.size).join(" → ");
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      height={HEIGHT}
      role="img"
      aria-label={`Replicas over time: ${sizes}`}
      preserveAspectRatio="none"
    >
      <path d={path} fill="none" stroke="var(--accent, currentColor)" strokeWidth={2} />
    </svg>
  );
}

function EntryRow({ entry }: { entry: ScalingEntry }) {
  const badge =
    entry.outcome === "Failed"
      ? "badge badge-bad"
      : entry.outcome === "InProgress"
        ? "badge badge-warn"
        : "badge badge-ok";
  const label = entry.outcome === "InProgress" ? "Scaling" : entry.outcome;
  return (
    <li>
      <time dateTime={new Date(entry.at).toISOString()}>{formatClock(entry.at)}</time>{" "}
      <strong>
        {entry.from} → {entry.to}
      </strong>{" "}
      <span className={badge}>{label}</span> {REASON_TEXT[entry.reason]}
      {entry.message ? <span className="muted"> — {entry.message}</span> : null}
    </li>
  );
}

export function ScalingHistory(props: ScalingHistoryProps) {
  const summary = scalingSummary({ events: props.events, elastic: props.elastic, rows: props.rows });
  if (!summary) return null;
  const bounds =
    summary.min !== null && summary.max !== null ? ` (min ${summary.min}, max ${summary.max})` : "";
  return (
    <section className="card" aria-labelledby="scaling-heading">
      <h2 id="scaling-heading">Scaling</h2>
      <ul className="facts" aria-label="Replicas">
        <li>
          Target replicas <strong data-testid="target-replicas">{summary.target ?? "—"}</strong>
        </li>
        <li>
          Actual replicas <strong data-testid="actual-replicas">{summary.actual ?? "—"}</strong>
          {bounds}
        </li>
        {summary.why ? (
          <li>
            Now <strong>{summary.why}</strong>
          </li>
        ) : null}
      </ul>
      {summary.entries.length === 0 ? (
        <EmptyState>No scaling yet: the job runs at its starting size.</EmptyState>
      ) : (
        <>
          <SizeChart summary={summary} createdAt={props.createdAt} now={props.now} />
          <ol aria-label="Scaling history">
            {summary.entries.map((entry) => (
              <EntryRow key={`${entry.at}-${entry.from}-${entry.to}`} entry={entry} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
