import type { JobCounts } from "@/server/domain/tv/cluster";
import styles from "./tv.module.css";

/** Running, pending and failed jobs as big tiles, with any extra tiles a view adds. */
export function JobCountTiles({ counts, children }: { counts: JobCounts; children?: React.ReactNode }) {
  return (
    <dl className={styles.tiles}>
      <div className={styles.tile}>
        <dt>Running jobs</dt>
        <dd>{counts.running}</dd>
      </div>
      <div className={styles.tile}>
        <dt>Pending jobs</dt>
        <dd className={counts.pending > 0 ? styles.warn : undefined}>{counts.pending}</dd>
      </div>
      <div className={styles.tile}>
        <dt>Failed jobs</dt>
        <dd className={counts.failed > 0 ? styles.bad : undefined}>{counts.failed}</dd>
      </div>
      {children}
    </dl>
  );
}
