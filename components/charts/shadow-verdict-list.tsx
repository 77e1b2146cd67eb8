import { formatClock } from "@/components/jobs/format";
import styles from "./charts.module.css";

/** What a shadow rule set would have done, as the restart timeline lists it beside the real restarts. */
export type ShadowTimelineEntry = {
  id: string;
  /** Epoch ms. */
  at: number;
  /** "would have restarted rank 3 in place: rule StepStall HANGING at …" */
  message: string;
  /** The shadow's library version, "demo-llm-policy v3"; null for rules attached without one. */
  policy: string | null;
};

/**
 * The shadow's verdicts on the timeline, an entry kind of their own: dashed, marked "Shadow", never drawn
 * as a restart bar (nothing was restarted), newest last like the faults above.
 */
export function ShadowVerdictList(props: { entries: readonly ShadowTimelineEntry[] }) {
  if (props.entries.length === 0) return null;
  const ordered = [...props.entries].sort((a, b) => a.at - b.at);
  return (
    <div className={styles.shadow}>
      <h3 className={styles.shadowTitle}>Shadow mode: what it would have done (nothing was restarted)</h3>
      <ol className={styles.shadowList} aria-label="Shadow verdicts">
        {ordered.map((entry) => (
          <li key={entry.id}>
            <span className={styles.shadowBadge}>Shadow</span> {formatClock(entry.at)}: {entry.message}
            {entry.policy ? ` (${entry.policy})` : ""}
          </li>
        ))}
      </ol>
    </div>
  );
}
