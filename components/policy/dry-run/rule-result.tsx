import { formatClock, formatNumber } from "@/components/jobs/format";
import styles from "./dry-run.module.css";
import { capped, offsetText, type RuleRunView } from "./dry-run-model";
import { RuleStateStrip } from "./rule-state-strip";

/**
 * One rule's dry-run: how many lines matched, its state over time, and the matching lines (the first 50,
 * saying how many more) with the value each one captured.
 */
export function RuleResult(props: { rule: RuleRunView; start: number; end: number }) {
  const { rule } = props;
  const matches = capped(rule.matches);
  const notShown = Math.max(matches.hidden, rule.matchCount - matches.shown.length);
  const hasValues = rule.matches.some((match) => match.value !== null);
  const headingId = `dry-run-rule-${rule.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <section className={styles.rule} aria-label={`Rule ${rule.name}`}>
      <h3 id={headingId}>{rule.name}</h3>
      <p className="muted">
        {rule.matchCount === 1 ? "1 matching line" : `${rule.matchCount} matching lines`}
        {notShown > 0 ? ` (showing ${matches.shown.length})` : ""}
      </p>
      <RuleStateStrip changes={rule.changes} start={props.start} end={props.end} />
      {matches.shown.length > 0 ? (
        <table className={styles.matches} aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col" className={styles.num}>
                Line
              </th>
              <th scope="col">Time</th>
              {hasValues ? (
                <th scope="col" className={styles.num}>
                  Value
                </th>
              ) : null}
              <th scope="col">Text</th>
            </tr>
          </thead>
          <tbody>
            {matches.shown.map((match) => (
              <tr key={match.lineNumber}>
                <td className={styles.num}>{match.lineNumber}</td>
                <td title={formatClock(match.at)}>{offsetText(match.at, props.start)}</td>
                {hasValues ? (
                  <td className={styles.num}>{match.value === null ? "—" : formatNumber(match.value, 4)}</td>
                ) : null}
                <td className={styles.line}>{match.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {matches.hidden > 0 ? (
        <p className="muted">… and {matches.hidden} more matching lines, not shown.</p>
      ) : null}
    </section>
  );
}
