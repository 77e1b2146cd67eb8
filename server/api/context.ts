import type { Db } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { rootLogger } from "@/server/log";
import { SESSION_COOKIE, type SessionUser, userForToken } from "@/server/services/auth/sessions";

/** What every procedure gets. Built per request by the route handler, or directly by tests. */
export type Context = {
  db: Db;
  user: SessionUser | null;
  sessionToken: string | undefined;
  log: Logger;
  /** Appends a Set-Cookie header to the response (a no-op for server-side callers). */
  setCookie: (cookie: string) => void;
};

export function readCookie(headers: Headers, name: string): string | undefined {
  const raw = headers.get("cookie");
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

export async function createRequestContext(opts: {
  db: Db;
  headers: Headers;
  resHeaders: Headers;
}): Promise<Context> {
  const sessionToken = readCookie(opts.headers, SESSION_COOKIE);
  return {
    db: opts.db,
    user: await userForToken(opts.db, sessionToken),
    sessionToken,
    log: rootLogger.child({ requestId: crypto.randomUUID() }),
    setCookie: (cookie) => opts.resHeaders.append("set-cookie", cookie),
  };
}
