import { formatClock } from "@/components/jobs/format";
import styles from "./dry-run.module.css";
import { afterReadText, type DeadlineView } from "./dry-run-model";

/**
 * A running rank's windows still open when its output was read: each rule, when it fires if no matching
 * line comes (soonest first). Not faults: the rank's output has not ended.
 */
export function DeadlineList(props: { deadlines: readonly DeadlineView[]; readAt: number }) {
  if (props.deadlines.length === 0) return null;
  return (
    <ul className={styles.deadlines} aria-label="Open windows">
      {props.deadlines.map((deadline) => (
        <li key={deadline.rule}>
          <strong>{deadline.rule}</strong> fires at {formatClock(deadline.at)} (
          {afterReadText(deadline.at, props.readAt)}) if no matching line comes
        </li>
      ))}
    </ul>
  );
}
