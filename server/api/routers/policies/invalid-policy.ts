import { TRPCError } from "@trpc/server";
import { ZodRealError, type z } from "zod";
import { fieldPath } from "@/server/api/trpc";
import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";

/**
 * A policy that does not parse, refused as a bad input (BAD_REQUEST): one issue per error, under `yaml`, so
 * the error formatter (server/api/trpc.ts) lists them in `data.issues` as `{ path, message }` and in one
 * readable message (the same one a server-side caller sees). Each message starts with where it was
 * written: `yaml.restartPolicy.evalPeriodSecs: line 4, column 7: …`.
 */
function where(error: JobSpecError): string {
  if (error.line === undefined) return "";
  return error.column === undefined ? `line ${error.line}: ` : `line ${error.line}, column ${error.column}: `;
}

export function invalidPolicy(errors: readonly JobSpecError[]): TRPCError {
  const issues: z.core.$ZodIssue[] = errors.map((error) => ({
    code: "custom",
    path: error.path === "" ? ["yaml"] : ["yaml", error.path],
    message: `${where(error)}${error.message}`,
    input: undefined,
  }));
  const message = issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`).join("; ");
  // ZodRealError: zod 4's ZodError that is an Error (tRPC wraps any other cause, hiding it from the formatter).
  return new TRPCError({ code: "BAD_REQUEST", message, cause: new ZodRealError(issues) });
}
