import { z } from "zod";

/** Shared env field schemas; env.ts (console) and server/operator/env.ts compose them. */
export const postgresUrlSchema = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
    message:
      "expected a postgres:// or postgresql:// URL, e.g. postgresql://user:pass@localhost:5432/rebound",
  });

export const portSchema = z.coerce
  .number({ message: "expected a port number" })
  .int({ message: "expected an integer port" })
  .min(1, { message: "expected a port between 1 and 65535" })
  .max(65_535, { message: "expected a port between 1 and 65535" });

export const booleanStringSchema = z.enum(["true", "false"]).transform((value) => value === "true");

/** A secret's value never reaches the log, even a wrong one: only its length is told. */
const shown = (key: string, value: string) =>
  /PASSWORD|TOKEN|SECRET/.test(key) ? `${value.length} characters, not shown` : JSON.stringify(value);

type EnvIssue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> };

/** Turns validation issues into one line naming each bad variable, e.g. `PORT: expected a port number`. */
export function describeEnvIssues(
  issues: readonly EnvIssue[],
  source: Record<string, string | undefined>,
): string {
  const parts = issues.map((issue) => {
    const first = issue.path?.[0];
    const key = typeof first === "object" && first !== null ? String(first.key) : String(first ?? "?");
    const got = source[key];
    return `${key}: ${issue.message}${got === undefined ? "" : ` (got ${shown(key, got)})`}`;
  });
  return `invalid configuration: ${parts.join("; ")}`;
}

export class InvalidEnvError extends Error {
  override name = "InvalidEnvError";
}

/** The first admin's password (REBOUND_ADMIN_PASSWORD, the setup page): at least 12 characters. */
export const ADMIN_PASSWORD_MIN_LENGTH = 12;
export const adminPasswordSchema = z
  .string()
  .min(ADMIN_PASSWORD_MIN_LENGTH, { message: `at least ${ADMIN_PASSWORD_MIN_LENGTH} characters` })
  .max(1024, { message: "at most 1024 characters" });
