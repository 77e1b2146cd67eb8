import { formatDuration, formatPercent } from "@/components/jobs/format";
import type { JobTotals } from "@/server/domain/jobs/view-model";
import styles from "./charts.module.css";

/** The job's recovery totals (see server/domain/console/timeline.ts for the definitions). */
export function TotalsStrip({ totals }: { totals: JobTotals }) {
  return (
    <dl className={styles.totals} aria-label="Recovery totals">
      <div>
        <dt>Faults</dt>
        <dd>{totals.faults.toLocaleString("en-US")}</dd>
      </div>
      <div>
        <dt title="Mean time to recover, fault to recovered">MTTR</dt>
        <dd>{formatDuration(totals.mttrMs)}</dd>
      </div>
      <div>
        <dt>Downtime</dt>
        <dd>{totals.downtimeMs > 0 ? formatDuration(totals.downtimeMs) : "none"}</dd>
      </div>
      <div>
        <dt title="Share of the job's running time not lost to faults">Goodput</dt>
        <dd>{formatPercent(totals.goodput)}</dd>
      </div>
    </dl>
  );
}
