import { type ReactNode, useMemo } from "react";
import { formatDuration } from "@/components/jobs/format";
import { useNow } from "@/components/jobs/use-now";
import { runningFor } from "@/server/domain/tv/incidents";
import type { IncidentsFrame } from "@/server/services/tv/frame";
import styles from "./tv.module.css";

const ACTIONS: Record<string, string> = {
  PLR: "restarting ranks in place",
  POD_REPLACEMENT: "replacing pods",
  JLR: "restarting the whole job",
};

/** One incident: what it is, how long it has lasted, and what is happening. */
function IncidentRow(props: {
  name: ReactNode;
  lastedMs: number | null;
  receivedAt: number;
  now: number;
  detail: string;
  warn?: boolean;
}) {
  return (
    <li className={props.warn ? `${styles.incident} ${styles.incidentWarn}` : styles.incident}>
      <span className={styles.incidentName}>{props.name}</span>
      <span className={styles.lasted} suppressHydrationWarning>
        <span className="sr-only">lasted </span>
        {formatDuration(
          runningFor({ lastedMs: props.lastedMs, receivedAt: props.receivedAt, now: props.now }),
        )}
      </span>
      <span className={styles.incidentDetail}>{props.detail}</span>
    </li>
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
        <div className={styles.allClearPanel}>
          <p className={styles.allClear}>{props.allClear}</p>
        </div>
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
  // When this screen received the frame, on its own clock: durations tick from the frame's figures.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new frame is a new reception
  const receivedAt = useMemo(() => Date.now(), [frame]);
  return (
    <div className={styles.columns}>
      <IncidentSection
        id="tv-recovering"
        title="Jobs recovering"
        allClear="No job is recovering."
        items={incidents.jobs}
        more={incidents.moreJobs}
        row={(job) => (
          <IncidentRow
            key={`${job.namespace}/${job.name}`}
            warn
            name={
              <>
                {job.name} <span className={styles.scope}>· {job.team ?? job.namespace}</span>
              </>
            }
            lastedMs={job.lastedMs}
            receivedAt={receivedAt}
            now={now}
            detail={`${job.reason}: ${ACTIONS[job.action] ?? job.action} (${job.stage})`}
          />
        )}
      />
      <IncidentSection
        id="tv-nodes"
        title="Nodes unhealthy"
        allClear="Every node is healthy."
        items={incidents.nodes}
        more={incidents.moreNodes}
        row={(node) => (
          <IncidentRow
            key={node.name}
            name={node.name}
            lastedMs={node.lastedMs}
            receivedAt={receivedAt}
            now={now}
            detail={node.ready ? node.health : `not ready · ${node.health}`}
          />
        )}
      />
    </div>
  );
}
