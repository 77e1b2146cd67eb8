import type { ReactNode } from "react";
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

/** One kind of incident: its heading with the whole count, its rows (or the all-clear) and "and N more". */
function IncidentSection<T>(props: {
  id: string;
  title: string;
  allClear: string;
  items: readonly T[];
  more: number;
  row: (item: T) => ReactNode;
}) {
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id} className={styles.sectionTitle}>
        {props.title} ({props.items.length + props.more})
      </h2>
      {props.items.length === 0 ? (
        <p className={styles.allClear}>{props.allClear}</p>
      ) : (
        <ul className={styles.incidents}>{props.items.map((item) => props.row(item))}</ul>
      )}
      {props.more > 0 ? <p className={styles.more}>and {props.more} more</p> : null}
    </section>
  );
}

/** Jobs recovering now and nodes unhealthy now, each with how long it has lasted (ticking locally). */
export function IncidentsView({ frame }: { frame: IncidentsFrame }) {
  const { incidents } = frame;
  const now = useNow();
  return (
    <div className={styles.columns}>
      <IncidentSection
        id="tv-recovering"
        title="Jobs recovering"
        allClear="No job is recovering."
        items={incidents.jobs}
        more={incidents.moreJobs}
        row={(job) => (
          <li key={`${job.namespace}/${job.name}`} className={`${styles.incident} ${styles.incidentWarn}`}>
            <span className={styles.incidentName}>
              {job.name} <span className={styles.scope}>· {job.team ?? job.namespace}</span>
            </span>
            <Lasted since={job.since} now={now} />
            <span className={styles.incidentDetail}>
              {job.reason}: {ACTIONS[job.action] ?? job.action} ({job.stage})
            </span>
          </li>
        )}
      />
      <IncidentSection
        id="tv-nodes"
        title="Nodes unhealthy"
        allClear="Every node is healthy."
        items={incidents.nodes}
        more={incidents.moreNodes}
        row={(node) => (
          <li key={node.name} className={styles.incident}>
            <span className={styles.incidentName}>{node.name}</span>
            <Lasted since={node.since} now={now} />
            <span className={styles.incidentDetail}>
              {node.ready ? node.health : `not ready · ${node.health}`}
            </span>
          </li>
        )}
      />
    </div>
  );
}
