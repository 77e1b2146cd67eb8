import type { PolicyCheck } from "./use-policy-check";

type Item = { kind: "Error" | "Warning" | "Note"; text: string };
type Positioned = { path: string; line?: number; column?: number; message: string };

function sayWhere(problem: Positioned): string {
  const field = problem.path ? `${problem.path}: ` : "";
  if (problem.line === undefined) return `${field}${problem.message}`;
  const column = problem.column === undefined ? "" : `, column ${problem.column}`;
  return `line ${problem.line}${column}: ${field}${problem.message}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function itemsOf(parse: PolicyCheck["parse"]): { headline: string; items: Item[] } {
  if (!parse.ok) {
    return {
      headline: plural(parse.errors.length, "error"),
      items: parse.errors.map((error) => ({ kind: "Error", text: sayWhere(error) })),
    };
  }
  const warnings: Item[] = parse.warnings.map((warning) => ({ kind: "Warning", text: sayWhere(warning) }));
  const notes: Item[] = parse.notes.map((note) => ({ kind: "Note", text: note }));
  const headline = parse.warnings.length > 0 ? `Valid, ${plural(parse.warnings.length, "warning")}` : "Valid";
  return { headline, items: [...warnings, ...notes] };
}

/**
 * The check of the policy in words under the editor (the same problems the editor marks): errors, warnings
 * and notes with their line and column, or that it is valid. Announced politely as it changes.
 */
export function PolicyProblems({ check }: { check: PolicyCheck }) {
  const { headline, items } = itemsOf(check.parse);
  const tone = check.parse.ok ? "muted" : "form-error";
  return (
    <div role="status" aria-live="polite" aria-label="Policy check">
      <p className={tone}>{headline}</p>
      {items.length > 0 ? (
        <ul className={tone}>
          {items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems may repeat word for word
            <li key={index}>
              <strong>{item.kind}:</strong> {item.text}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
