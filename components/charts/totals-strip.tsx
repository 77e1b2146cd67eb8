import { formatDuration, formatPercent } from "@/components/jobs/format";
import type { JobTotals } from "@/server/domain/jobs/view-model";
import styles from "./charts.module.css";

const GOODPUT_TITLE =
  "Share of the job's time that went into training progress: 1 − lost time / time since it started. " +
  "A fault's lost time runs from the job's last step before it to training back at that step, so a " +
  "hang's detection window and steps redone after a checkpoint reload count.";

/** Faults measured by control-plane time only, said in words; null when every fault has its progress. */
export function basisNote(totals: JobTotals): string | null {
  const count = totals.controlPlaneFaults ?? 0;
  if (count === 0) return null;
  const faults = count === 1 ? "1 fault" : `${count.toLocaleString("en-US")} faults`;
  return `${faults} without recorded training progress counted by control-plane time (fault → recovered).`;
}

/** The job's recovery totals (see server/domain/console/timeline.ts for the definitions). */
export function TotalsStrip({ totals }: { totals: JobTotals }) {
  const note = basisNote(totals);
  return (
    <div>
      <dl className={styles.totals} aria-label="Recovery totals">
        <div>
          <dt>Faults</dt>
          <dd>{totals.faults.toLocaleString("en-US")}</dd>
        </div>
        <div>
          <dt title="Mean time to recover, fault to recovered, less crash-loop back-off waits">MTTR</dt>
          <dd>{formatDuration(totals.mttrMs)}</dd>
        </div>
        {(totals.waitMs ?? 0) > 0 ? (
          <div>
            <dt title="Time restarts waited out the crash-loop back-off (not counted in MTTR)">
              Back-off waits
            </dt>
            <dd>{formatDuration(totals.waitMs ?? 0)}</dd>
          </div>
        ) : null}
        <div>
          <dt title="Time lost to faults: last progress to training back at that step">Downtime</dt>
          <dd>{totals.downtimeMs > 0 ? formatDuration(totals.downtimeMs) : "none"}</dd>
        </div>
        <div>
          <dt title="Steps redone after restarts from an older checkpoint">Lost steps</dt>
          <dd>{(totals.lostSteps ?? 0).toLocaleString("en-US")}</dd>
        </div>
        <div>
          <dt title={GOODPUT_TITLE}>Goodput</dt>
          <dd>{formatPercent(totals.goodput)}</dd>
        </div>
      </dl>
      {note ? (
        <p className="muted" style={{ margin: "4px 0 0", fontSize: 12 }}>
          {note}
        </p>
      ) : null}
    </div>
  );
}
