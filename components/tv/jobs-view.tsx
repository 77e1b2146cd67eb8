import { formatPercent } from "@/components/jobs/format";
import type { TvJobRow } from "@/server/domain/tv/jobs";
import type { JobsFrame } from "@/server/services/tv/frame";
import { JobCountTiles } from "./job-counts";
import styles from "./tv.module.css";

function phaseClass(phase: string): string | undefined {
  if (phase === "Failed") return styles.bad;
  if (phase === "Recovering" || phase === "Pending") return styles.warn;
  return undefined;
}

function goodputClass(goodput: number | null): string | undefined {
  if (goodput === null) return undefined;
  return goodput >= 0.95 ? styles.ok : goodput >= 0.8 ? styles.warn : styles.bad;
}

/** Healthy ranks apply once a job has ranks to be healthy: not while it waits to start (its goodput is null too). */
const ranksApply = (job: TvJobRow) =>
  job.ranksTotal > 0 && !(job.phase === "Pending" && job.goodput === null);

function JobLine({ job }: { job: TvJobRow }) {
  const ranks = ranksApply(job);
  return (
    <tr>
      <td>{job.name}</td>
      <td>{job.team ?? job.namespace}</td>
      <td className={phaseClass(job.phase)}>{job.phase}</td>
      <td className={`${styles.num} ${ranks && job.ranksHealthy < job.ranksTotal ? styles.warn : ""}`}>
        {ranks ? `${job.ranksHealthy} / ${job.ranksTotal}` : "—"}
      </td>
      <td className={styles.num}>{job.restarts}</td>
      <td className={`${styles.num} ${goodputClass(job.goodput) ?? ""}`}>{formatPercent(job.goodput)}</td>
    </tr>
  );
}

/** Running, pending and failed jobs, with their ranks' health, restarts and goodput. */
export function JobsView({ frame }: { frame: JobsFrame }) {
  return (
    <>
      <JobCountTiles counts={frame.counts}>
        <div className={styles.tile}>
          <dt>Cluster goodput</dt>
          <dd className={goodputClass(frame.goodput)}>{formatPercent(frame.goodput)}</dd>
        </div>
      </JobCountTiles>
      <div className={styles.fill}>
        {frame.jobs.length === 0 ? (
          <div className={styles.allClearPanel}>
            <p className={styles.allClear}>No running, pending or failed jobs.</p>
          </div>
        ) : (
          <div className={`${styles.fill} ${styles.tableBox}`}>
            <table className={styles.table}>
              <colgroup>
                <col style={{ width: "30%" }} />
                <col style={{ width: "18%" }} />
                <col style={{ width: "16%" }} />
                <col style={{ width: "14%" }} />
                <col style={{ width: "10%" }} />
                <col style={{ width: "12%" }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Team</th>
                  <th scope="col">State</th>
                  <th scope="col" className={styles.num}>
                    Ranks healthy
                  </th>
                  <th scope="col" className={styles.num}>
                    Restarts
                  </th>
                  <th scope="col" className={styles.num}>
                    Goodput
                  </th>
                </tr>
              </thead>
              <tbody>
                {frame.jobs.map((job) => (
                  <JobLine key={`${job.namespace}/${job.name}`} job={job} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {frame.more > 0 ? <p className={styles.more}>and {frame.more} more jobs</p> : null}
      </div>
    </>
  );
}
