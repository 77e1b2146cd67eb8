import { axisFormat } from "@/components/charts/axis-format";
import { TvLineChart } from "@/components/charts/tv-line-chart";
import { formatDuration } from "@/components/jobs/format";
import type { HourBucket } from "@/server/domain/tv/reliability";
import type { MetricsResult } from "@/server/metrics/series";
import type { ReliabilityFrame } from "@/server/services/tv/frame";
import styles from "./tv.module.css";

function FaultsPerHour({ hours }: { hours: HourBucket[] }) {
  const busiest = Math.max(0, ...hours.map((hour) => hour.faults));
  const most = Math.max(1, busiest);
  return (
    <section aria-labelledby="tv-hours">
      <h2 id="tv-hours" className={styles.sectionTitle}>
        Faults per hour
      </h2>
      <p className="sr-only">
        Over the last 24 hours, at most {busiest} faults in one hour; in the last hour,{" "}
        {hours.at(-1)?.faults ?? 0}.
      </p>
      <ol className={styles.hours} aria-hidden="true">
        {hours.map((hour) => (
          <li
            key={hour.start}
            className={`${styles.hour} ${hour.faults === 0 ? styles.hourEmpty : ""}`}
            style={{ height: `${(Math.max(hour.faults, most / 50) / most) * 100}%` }}
          />
        ))}
      </ol>
      <div className={styles.axis} aria-hidden="true">
        <span>24 h ago</span>
        <span>12 h ago</span>
        <span>now</span>
      </div>
    </section>
  );
}

function lastValues(result: Extract<MetricsResult, { status: "ok" }>): string {
  // The chart's own precision (axis-format.ts), so the words and the drawing agree.
  const format = axisFormat(
    result.series.flatMap((series) => series.points.map((point) => point.value)),
    { from: 0 },
  );
  const parts = result.series.map((series) => {
    const last = series.points.at(-1);
    return `${series.name}: ${last ? format.value(last.value) : "no data"}`;
  });
  return parts.length > 0
    ? `Latest throughput (samples/s) ${parts.join("; ")}`
    : "No throughput recorded in the last hour";
}

/** The cluster's throughput over the last hour, or why it cannot be drawn ("Metrics unavailable"). */
function Throughput({ result }: { result: MetricsResult }) {
  return (
    <section className={styles.chart} aria-labelledby="tv-throughput-title">
      <h2 id="tv-throughput-title" className={styles.sectionTitle}>
        Cluster throughput, last hour (samples/s)
      </h2>
      {result.status === "ok" ? (
        <>
          <p className="sr-only">{lastValues(result)}</p>
          {result.series.length === 0 ? (
            <div className={styles.allClearPanel}>
              <p className={styles.more}>No throughput recorded in the last hour.</p>
            </div>
          ) : (
            <TvLineChart series={result.series} className={styles.chartBox} testId="tv-throughput" />
          )}
        </>
      ) : (
        <div className={styles.unavailable} role="status">
          <strong>Metrics unavailable</strong>
          <span>{result.reason}</span>
        </div>
      )}
    </section>
  );
}

/** Faults and recovery over the last 24 h, faults per hour, and the cluster's throughput. */
export function ReliabilityView({ frame }: { frame: ReliabilityFrame }) {
  const { stats } = frame;
  return (
    <>
      <dl className={styles.tiles}>
        <div className={styles.tile}>
          <dt>Faults, last 24 h</dt>
          <dd className={stats.faults > 0 ? styles.warn : styles.ok}>{stats.faults}</dd>
        </div>
        <div className={`${styles.tile} ${styles.tileWide}`}>
          <dt>Mean time to recover</dt>
          <dd>{formatDuration(stats.mttrMs)}</dd>
        </div>
        <div className={styles.tile}>
          <dt>Recovered</dt>
          <dd className={styles.ok}>{stats.recovered}</dd>
        </div>
        <div className={styles.tile}>
          <dt>Recovering now</dt>
          <dd className={stats.pending > 0 ? styles.warn : undefined}>{stats.pending}</dd>
        </div>
        <div className={styles.tile}>
          <dt>Failed</dt>
          <dd className={stats.failed > 0 ? styles.bad : undefined}>{stats.failed}</dd>
        </div>
      </dl>
      <div className={styles.columns}>
        <FaultsPerHour hours={stats.perHour} />
        <Throughput result={frame.throughput} />
      </div>
    </>
  );
}
