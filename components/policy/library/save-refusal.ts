/**
 * What the server said when it refused a create or a save, for the library's save form: the AppError code
 * (CONFLICT names who saved the newer version and when), the readable message, and the policy's problems
 * at their line and column (BAD_REQUEST from invalid-policy.ts) to mark in the editor.
 */
import { type PolicyProblem, problemsFromIssues } from "@/components/policy/editor/diagnostics";

export type SaveRefusal = {
  code: string | null;
  message: string;
  problems: PolicyProblem[];
  /** Messages about the other inputs (name, message, teamId), by field. */
  fields: Readonly<Record<string, string>>;
};

type ErrorShape = {
  message?: unknown;
  data?: { appErrorCode?: unknown; code?: unknown; issues?: unknown } | null;
};
type Issue = { path: string; message: string };

function issuesOf(value: unknown): Issue[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return [];
    const { path, message } = item as { path?: unknown; message?: unknown };
    return typeof path === "string" && typeof message === "string" ? [{ path, message }] : [];
  });
}

/** `name: Platform already has a policy named "x"` → { name: "…" } (an AppError names its field first). */
function fieldFromMessage(message: string): Record<string, string> {
  const match = /^(name|message|description|teamId):\s+(.+)$/.exec(message);
  return match?.[1] && match[2] ? { [match[1]]: match[2] } : {};
}

export function saveRefusal(error: unknown): SaveRefusal {
  const shape = (typeof error === "object" && error !== null ? error : {}) as ErrorShape;
  const message = typeof shape.message === "string" ? shape.message : String(error);
  const appCode = shape.data?.appErrorCode;
  const trpcCode = shape.data?.code;
  const code = typeof appCode === "string" ? appCode : typeof trpcCode === "string" ? trpcCode : null;
  const issues = issuesOf(shape.data?.issues);
  const fields: Record<string, string> = fieldFromMessage(message);
  for (const issue of issues) if (!issue.path.startsWith("yaml")) fields[issue.path] ??= issue.message;
  return { code, message, problems: problemsFromIssues(issues), fields };
}
