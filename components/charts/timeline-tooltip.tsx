import { formatClock, formatDuration } from "@/components/jobs/format";
import styles from "./charts.module.css";
import { ACTION_LABEL, type TimelineRow, timesText } from "./restart-timeline-model";
import { faultScope, lossText, recoveryText } from "./timeline-text";

function isRow(value: unknown): value is TimelineRow {
  return typeof value === "object" && value !== null && "entry" in value && "offset" in value;
}

type TimelineTooltipProps = {
  active: boolean;
  payload: ReadonlyArray<{ payload?: unknown }> | undefined;
  now: number;
};

/** Recharts tooltip content for a restart-timeline bar: reason, scope, both latencies and the training lost. */
export function TimelineTooltip({ active, payload, now }: TimelineTooltipProps) {
  const row: unknown = payload?.[0]?.payload;
  if (!active || !isRow(row)) return null;
  const { entry } = row;
  return (
    <div className={styles.tooltip}>
      <strong>
        {ACTION_LABEL[entry.action]} · {entry.reason}
        {timesText(entry)}
      </strong>
      <div className="muted">{formatClock(entry.faultAt)}</div>
      {entry.message ? <div>{entry.message}</div> : null}
      <div>Affected: {faultScope(entry)}</div>
      <div>
        Detection: {formatDuration(entry.detectionMs)} (
        {Math.round(entry.detectionMs).toLocaleString("en-US")} ms)
      </div>
      <div>
        Recovery:{" "}
        {entry.recoveryMs === null
          ? recoveryText(entry, now)
          : `${formatDuration(entry.recoveryMs)} (${Math.round(entry.recoveryMs).toLocaleString("en-US")} ms)`}
      </div>
      {(entry.waitMs ?? 0) > 0 ? <div>Back-off wait: {formatDuration(entry.waitMs ?? 0)}</div> : null}
      {row.loss ? <div>Training: {lossText(row.loss)}</div> : null}
    </div>
  );
}
