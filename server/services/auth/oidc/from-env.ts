import "server-only";
import { env } from "@/env";
import { AppError } from "@/server/errors";
import { type OidcSettings, parseOidcSettings } from "./settings";

/** The console's single sign-on settings, from REBOUND_OIDC_* (null: off). A wrong setting names its variable. */
export function oidcSettings(): OidcSettings | null {
  const parsed = parseOidcSettings(env);
  if (parsed !== null && "error" in parsed) throw new AppError("INVALID", parsed.error);
  return parsed;
}

/** Whether local passwords sign in (REBOUND_LOCAL_PASSWORDS, on by default). */
export function localPasswordsEnabled(): boolean {
  return env.REBOUND_LOCAL_PASSWORDS === "on";
}
