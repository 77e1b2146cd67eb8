import type { z } from "zod";
import type { ValidationIssue } from "@/server/domain/agent-api/protocol";

/**
 * Turns a request-body parse into FastAPI's 422 `detail` list: `loc` starts with "body" and names the
 * field (`["body", "log_monitoring_configuration", 0, "logPattern"]`); a missing field reads like
 * pydantic's "Field required" (type "missing").
 */

export type BodyParse<T> = { ok: true; value: T } | { ok: false; detail: ValidationIssue[] };

function locOf(path: readonly PropertyKey[]): (string | number)[] {
  return ["body", ...path.map((key) => (typeof key === "number" ? key : String(key)))];
}

function isMissing(issue: z.core.$ZodIssue): boolean {
  const missingCode = issue.code === "invalid_type" || issue.code === "invalid_union";
  return missingCode && "input" in issue && issue.input === undefined;
}

export function issuesToDetail(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) =>
    isMissing(issue)
      ? { type: "missing", loc: locOf(issue.path), msg: "Field required" }
      : { type: issue.code, loc: locOf(issue.path), msg: issue.message },
  );
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): BodyParse<z.output<S>> {
  const parsed = schema.safeParse(body, { reportInput: true });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, detail: issuesToDetail(parsed.error.issues) };
}

/** The body was not JSON at all. */
export function jsonErrorDetail(reason: string): ValidationIssue[] {
  return [{ type: "json_invalid", loc: ["body"], msg: `JSON decode error: ${reason}` }];
}
