import { TRPCError } from "@trpc/server";
import { ZodError, type z } from "zod";
import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";

/**
 * A policy that does not parse, refused as a bad input (BAD_REQUEST): one issue per error, under `yaml`, so
 * the error formatter (server/api/trpc.ts) lists them in `data.issues` as `{ path, message }` and in one
 * readable message. Each message starts with where it was written: `line 4, column 7: …`.
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
  const cause = new ZodError(issues);
  return new TRPCError({
    code: "BAD_REQUEST",
    message: `the policy has ${errors.length} error${errors.length === 1 ? "" : "s"}; nothing was saved`,
    cause,
  });
}
