import { readFile } from "node:fs/promises";
import { adminPasswordSchema, InvalidEnvError } from "@/lib/env-schema";

/** REBOUND_ADMIN_EMAIL with REBOUND_ADMIN_PASSWORD or REBOUND_ADMIN_PASSWORD_FILE, as env.ts validated them. */
export type AdminEnv = {
  REBOUND_ADMIN_EMAIL?: string | undefined;
  REBOUND_ADMIN_PASSWORD?: string | undefined;
  REBOUND_ADMIN_PASSWORD_FILE?: string | undefined;
};

async function passwordFromFile(file: string): Promise<string> {
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    const detail = error instanceof Error ? error.message : String(error);
    throw new InvalidEnvError(
      `invalid configuration: REBOUND_ADMIN_PASSWORD_FILE: cannot read ${file}: ${detail}`,
    );
  });
  // A Secret written with `echo` ends in a newline that is not part of the password.
  const password = text.replace(/\r?\n$/, "");
  const parsed = adminPasswordSchema.safeParse(password);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => issue.message).join("; ");
    throw new InvalidEnvError(
      `invalid configuration: REBOUND_ADMIN_PASSWORD_FILE: the password in ${file}: ${why}`,
    );
  }
  return password;
}

/** The installer's first admin, or null when none is supplied; a half-given one is a configuration error. */
export async function adminCredentials(env: AdminEnv): Promise<{ email: string; password: string } | null> {
  const {
    REBOUND_ADMIN_EMAIL: email,
    REBOUND_ADMIN_PASSWORD: inline,
    REBOUND_ADMIN_PASSWORD_FILE: file,
  } = env;
  if (inline !== undefined && file !== undefined) {
    throw new InvalidEnvError(
      "invalid configuration: REBOUND_ADMIN_PASSWORD, REBOUND_ADMIN_PASSWORD_FILE: set one of them, not both",
    );
  }
  const hasPassword = inline !== undefined || file !== undefined;
  if (!email && !hasPassword) return null;
  if (!email) {
    throw new InvalidEnvError(
      "invalid configuration: REBOUND_ADMIN_EMAIL: required with REBOUND_ADMIN_PASSWORD(_FILE): the first admin's email",
    );
  }
  if (inline !== undefined) return { email, password: inline };
  if (file !== undefined) return { email, password: await passwordFromFile(file) };
  throw new InvalidEnvError(
    "invalid configuration: REBOUND_ADMIN_PASSWORD: required with REBOUND_ADMIN_EMAIL (or REBOUND_ADMIN_PASSWORD_FILE)",
  );
}
