/**
 * Problems in a policy (from parsePolicyYaml as the user types, or from the server's refusal of a save) as
 * CodeMirror diagnostics: at the 1-based line and column the domain reports, spanning the word written
 * there, so the marker sits under the exact mistake. A problem with no position marks the first line.
 */
import type { Diagnostic } from "@codemirror/lint";
import type { Text } from "@codemirror/state";

/** A problem as the domain reports it (JobSpecError). */
export type PolicyProblem = { path: string; line?: number; column?: number; message: string };

export type PolicyProblems = {
  errors: readonly PolicyProblem[];
  warnings: readonly PolicyProblem[];
};

/** The span to underline: from the column to the end of the token there (at least one character). */
function spanAt(doc: Text, problem: PolicyProblem): { from: number; to: number } {
  if (problem.line === undefined || problem.line < 1) {
    const first = doc.line(1);
    return { from: first.from, to: Math.max(first.to, Math.min(first.from + 1, doc.length)) };
  }
  const line = doc.line(Math.min(problem.line, doc.lines));
  const column = Math.max(1, problem.column ?? 1);
  const from = Math.min(line.from + column - 1, line.to);
  const rest = doc.sliceString(from, line.to);
  const token = /^\S*/.exec(rest)?.[0].length ?? 0;
  const to = token > 0 ? from + token : Math.min(Math.max(line.to, from + 1), doc.length);
  return { from, to: Math.max(to, from) };
}

function label(problem: PolicyProblem): string {
  return problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`;
}

export function policyDiagnostics(doc: Text, problems: PolicyProblems): Diagnostic[] {
  const make = (severity: "error" | "warning") => (problem: PolicyProblem) => ({
    ...spanAt(doc, problem),
    severity,
    message: label(problem),
    source: "policy",
  });
  return [...problems.errors.map(make("error")), ...problems.warnings.map(make("warning"))];
}

const WHERE = /^line (\d+)(?:, column (\d+))?: (.*)$/s;

/**
 * The server's refusal of a save (`data.issues`: `{ path: "yaml.restartPolicy", message: "line 4, column 7: …" }`,
 * server/api/routers/policies/invalid-policy.ts) as problems at their line and column.
 */
export function problemsFromIssues(
  issues: ReadonlyArray<{ path: string; message: string }>,
): PolicyProblem[] {
  return issues
    .filter((issue) => issue.path === "yaml" || issue.path.startsWith("yaml."))
    .map((issue) => {
      const path = issue.path.replace(/^yaml\.?/, "");
      const match = WHERE.exec(issue.message);
      if (match === null) return { path, message: issue.message };
      return {
        path,
        line: Number(match[1]),
        column: match[2] === undefined ? undefined : Number(match[2]),
        message: match[3] ?? "",
      };
    });
}
