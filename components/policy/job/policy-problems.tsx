import type { PolicyParse } from "@/server/domain/policy";
import styles from "./policy.module.css";

type Problem = { severity: "error" | "warning"; line: number | null; column: number | null; text: string };

function problemsOf(parse: PolicyParse): Problem[] {
  const found = parse.ok ? parse.warnings : parse.errors;
  const severity = parse.ok ? "warning" : "error";
  return found.map((issue) => ({
    severity,
    line: issue.line ?? null,
    column: issue.column ?? null,
    text: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
  }));
}

/**
 * What is wrong with the draft, each at its line and column (the editor marks the same places), then the
 * parser's notes ("took spec.runPolicy from the pasted job").
 */
export function PolicyProblems(props: { parse: PolicyParse }) {
  const problems = problemsOf(props.parse);
  const notes = props.parse.ok ? props.parse.notes : [];
  if (problems.length === 0 && notes.length === 0)
    return (
      <p className="muted" role="status">
        No problems found.
      </p>
    );
  return (
    <>
      {problems.length > 0 ? (
        <ul className={styles.problems} aria-label="Problems in the policy">
          {problems.map((problem, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems have no identity but their order
            <li key={index} data-severity={problem.severity}>
              <span className={styles.where}>
                {problem.line === null ? "" : `Line ${problem.line}`}
                {problem.column === null ? "" : `, column ${problem.column}`}
              </span>
              <strong>{problem.severity === "error" ? "Error" : "Warning"}:</strong> {problem.text}
            </li>
          ))}
        </ul>
      ) : null}
      {notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
    </>
  );
}
