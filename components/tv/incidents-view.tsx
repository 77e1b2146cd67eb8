import { formatDuration } from "@/components/jobs/format";
import { useNow } from "@/components/jobs/use-now";
import { lastedMs } from "@/server/domain/tv/incidents";
import type { IncidentsFrame } from "@/server/services/tv/frame";
import styles from "./tv.module.css";

const ACTIONS: Record<string, string> = {
  PLR: "restarting ranks in place",
  POD_REPLACEMENT: "replacing pods",
  JLR: "restarting the whole job",
};

function Lasted({ since, now }: { since: number; now: number }) {
  return (
    <span className={styles.lasted} suppressHydrationWarning>
      <span className="sr-only">lasted </span>
      {formatDuration(lastedMs(since, now))}
    </span>
  );
}

/** Jobs recovering now and nodes unhealthy now, each with how long it has lasted (ticking locally). */
export function IncidentsView({ frame }: { frame: IncidentsFrame }) {
  const { incidents } = frame;
  const now = useNow();
  return (
    <div className={styles.columns}>
      <section aria-labelledby="tv-recovering">
        <h2 id="tv-recovering" className={styles.sectionTitle}>
          Jobs recovering ({incidents.jobs.length + incidents.moreJobs})
        </h2>
        {incidents.jobs.length === 0 ? (
          <p className={styles.allClear}>No job is recovering.</p>
        ) : (
          <ul className={styles.incidents}>
            {incidents.jobs.map((job) => (
              <li
                key={`${job.namespace}/${job.name}`}
                className={`${styles.incident} ${styles.incidentWarn}`}
              >
                <span className={styles.incidentName}>
                  {job.name} <span className={styles.scope}>· {job.team ?? job.namespace}</span>
                </span>
                <Lasted since={job.since} now={now} />
                <span className={styles.incidentDetail}>
                  {job.reason}: {ACTIONS[job.action] ?? job.action} ({job.stage})
                </span>
              </li>
            ))}
          </ul>
        )}
        {incidents.moreJobs > 0 ? <p className={styles.more}>and {incidents.moreJobs} more</p> : null}
      </section>
      <section aria-labelledby="tv-nodes">
        <h2 id="tv-nodes" className={styles.sectionTitle}>
          Nodes unhealthy ({incidents.nodes.length + incidents.moreNodes})
        </h2>
        {incidents.nodes.length === 0 ? (
          <p className={styles.allClear}>Every node is healthy.</p>
        ) : (
          <ul className={styles.incidents}>
            {incidents.nodes.map((node) => (
              <li key={node.name} className={styles.incident}>
                <span className={styles.incidentName}>{node.name}</span>
                <Lasted since={node.since} now={now} />
                <span className={styles.incidentDetail}>
                  {node.ready ? node.health : `not ready · ${node.health}`}
                </span>
              </li>
            ))}
          </ul>
        )}
        {incidents.moreNodes > 0 ? <p className={styles.more}>and {incidents.moreNodes} more</p> : null}
      </section>
    </div>
  );
}
