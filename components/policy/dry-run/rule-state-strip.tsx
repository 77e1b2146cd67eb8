import { formatClock } from "@/components/jobs/format";
import type { LogState } from "@/server/domain/log-rules/evaluator";
import styles from "./dry-run.module.css";
import {
  capped,
  offsetText,
  STATE_COLOR,
  type StateChange,
  stateSegments,
  stripSegments,
} from "./dry-run-model";

/** The strip runs a little past the last change, so a state entered at the very end still shows. */
function stripEnd(props: { changes: readonly StateChange[]; start: number; end: number }): number {
  const last = props.changes.at(-1)?.at ?? props.start;
  return Math.max(props.end, last + Math.max(1000, (props.end - props.start) * 0.03));
}

/** What made a state change: a line, the rules starting, or time passing with no line (a window ran out). */
function changeCause(change: StateChange, start: number): string {
  if (change.lineNumber !== null) return `, line ${change.lineNumber}`;
  return change.at === start ? " (the rules start)" : " (no line came: the clock ran on)";
}

const STATES: readonly LogState[] = ["WAITING", "HEALTHY", "SLOW", "HANGING", "FAULTED"];

/**
 * A rule's state over the dry-run's simulated time as one compact strip (hidden from screen readers),
 * and the same changes as a list in words ("+12.0 s (12:00:12): HANGING, line 40"). Long runs are drawn
 * in buckets and their list cut, so a flapping rule over 20,000 lines stays a few hundred elements.
 */
export function RuleStateStrip(props: { changes: readonly StateChange[]; start: number; end: number }) {
  const segments = stripSegments(stateSegments(props.changes, { start: props.start, end: stripEnd(props) }));
  const listed = capped(props.changes);
  const used = STATES.filter((state) => segments.some((segment) => segment.state === state));
  return (
    <>
      <div className={styles.strip} aria-hidden="true">
        {segments.map((segment) => (
          <span
            key={`${segment.from}-${segment.state}`}
            title={`${segment.state} ${offsetText(segment.from, props.start)} → ${offsetText(segment.to, props.start)}`}
            style={{ width: `${segment.share * 100}%`, background: STATE_COLOR[segment.state] }}
          />
        ))}
      </div>
      <div className={styles.stripKey} aria-hidden="true">
        {used.map((state) => (
          <span key={state} style={{ color: STATE_COLOR[state] }}>
            ■ {state}
          </span>
        ))}
      </div>
      <ol className={styles.states} aria-label="State over time">
        {props.changes.length === 0 ? <li>WAITING throughout (no line matched)</li> : null}
        {listed.shown.map((change) => (
          <li key={`${change.at}-${change.state}`}>
            {offsetText(change.at, props.start)} ({formatClock(change.at)}): {change.state}
            {changeCause(change, props.start)}
          </li>
        ))}
        {listed.hidden > 0 ? <li>… and {listed.hidden} more changes</li> : null}
      </ol>
    </>
  );
}
