import type { DiffLine } from "@/server/domain/policy";
import styles from "./library.module.css";

const SPOKEN: Record<DiffLine["kind"], string> = { same: "unchanged", added: "added", removed: "removed" };
const SIGN: Record<DiffLine["kind"], string> = { same: " ", added: "+", removed: "−" };

/**
 * A unified diff between two versions: line numbers on both sides, added lines green with "+", removed
 * red with "−", and each line's kind said in words for screen readers (colour is not the only cue).
 */
export function VersionDiff(props: { from: number; to: number; lines: readonly DiffLine[]; label?: string }) {
  const added = props.lines.filter((line) => line.kind === "added").length;
  const removed = props.lines.filter((line) => line.kind === "removed").length;
  const label = props.label ?? `Changes from version ${props.from} to version ${props.to}`;
  return (
    <figure style={{ margin: 0 }}>
      <figcaption className="muted">
        {added === 0 && removed === 0
          ? `Versions ${props.from} and ${props.to} are the same.`
          : `${added} line${added === 1 ? "" : "s"} added, ${removed} removed from version ${props.from} to ${props.to}.`}
      </figcaption>
      <ol className={styles.diff} aria-label={label}>
        {props.lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines are positional
          <li key={index} data-kind={line.kind}>
            <span className={styles.lineNo} aria-hidden="true">
              {line.fromLine ?? ""}
            </span>
            <span className={styles.lineNo} aria-hidden="true">
              {line.toLine ?? ""}
            </span>
            <span className={styles.sign} aria-hidden="true">
              {SIGN[line.kind]}
            </span>
            <span>
              {line.kind === "same" ? null : <span className="sr-only">{SPOKEN[line.kind]}: </span>}
              {line.text}
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
