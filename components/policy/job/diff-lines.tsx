import type { DiffLine } from "@/server/domain/policy";
import styles from "./policy.module.css";

const SIGN: Record<DiffLine["kind"], string> = { same: " ", added: "+", removed: "−" };
const SPOKEN: Record<DiffLine["kind"], string> = { same: "", added: "added: ", removed: "removed: " };

/**
 * A line diff of two policy versions: old and new line numbers, a sign, the text; added and removed lines
 * are coloured and also say so to screen readers.
 */
export function DiffLines(props: { lines: readonly DiffLine[]; label: string }) {
  const changed = props.lines.filter((line) => line.kind !== "same").length;
  if (changed === 0) return <p className="muted">No difference.</p>;
  return (
    <ol className={styles.diff} aria-label={props.label}>
      {props.lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: diff lines are identified by their position
        <li key={index} data-kind={line.kind}>
          <span className={styles.lineNo} aria-hidden="true">
            {line.fromLine ?? ""}
          </span>
          <span className={styles.lineNo} aria-hidden="true">
            {line.toLine ?? ""}
          </span>
          <span aria-hidden="true">{SIGN[line.kind]}</span>
          <span>
            <span className="sr-only">{SPOKEN[line.kind]}</span>
            {line.text}
          </span>
        </li>
      ))}
    </ol>
  );
}
