import type { Db } from "@/server/db/client";
import type { ShareGrant } from "@/server/domain/access/share";
import type { Logger } from "@/server/log";
import { rootLogger } from "@/server/log";
import {
  NO_TRUSTED_PROXIES,
  resolveClientAddress,
  type TrustedProxies,
} from "@/server/services/auth/client-address";
import { peerAddressOf } from "@/server/services/auth/peer-address";
import { SESSION_COOKIE, type SessionUser, userForToken } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { SHARE_COOKIE, SHARE_HEADER, shareGrantForToken } from "@/server/services/share-tokens/grants";
import { getClusterSource } from "@/server/services/wiring";

/** What every procedure gets. Built per request by the route handler, or directly by tests. */
export type Context = {
  db: Db;
  user: SessionUser | null;
  sessionToken: string | undefined;
  /**
   * A TV share token's read-only grant, only where no one is signed in (a token never adds to a user's
   * rights). A request carrying only this is refused every mutation (server/api/trpc.ts).
   */
  share: ShareGrant | null;
  log: Logger;
  /** Appends a Set-Cookie header to the response (a no-op for server-side callers). */
  setCookie: (cookie: string) => void;
  /** The cluster the console reads (the operator's API, or the cluster itself in console-only mode). */
  cluster: () => Promise<ClusterSource>;
  /** The client's address, for sign-in attempt limiting. */
  clientAddress: string;
  /** The request came over HTTPS (directly, or through a proxy that says so): cookies get `Secure`. */
  secure: boolean;
};

/**
 * The address of the client, for sign-in and pairing limits: the connection's (stamped by
 * server/services/auth/peer-address.ts), or the X-Forwarded-For entry that REBOUND_TRUSTED_PROXIES lets us
 * believe (server/services/auth/client-address.ts); by default no forwarded address is believed.
 */
export function clientAddressOf(headers: Headers, trust: TrustedProxies = NO_TRUSTED_PROXIES): string {
  return resolveClientAddress({
    peer: peerAddressOf(headers),
    forwardedFor: headers.get("x-forwarded-for"),
    trust,
  });
}

/** HTTPS as the browser sees it: the request URL, or `x-forwarded-proto` set by a TLS-terminating proxy. */
export function isSecureRequest(opts: { url: string | undefined; headers: Headers }): boolean {
  if (opts.url?.startsWith("https:")) return true;
  return opts.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

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
  url?: string;
  trustedProxies?: TrustedProxies;
}): Promise<Context> {
  const sessionToken = readCookie(opts.headers, SESSION_COOKIE);
  const user = await userForToken(opts.db, sessionToken);
  const shareToken = opts.headers.get(SHARE_HEADER) ?? readCookie(opts.headers, SHARE_COOKIE);
  return {
    db: opts.db,
    user,
    sessionToken,
    share: user ? null : await shareGrantForToken(opts.db, shareToken),
    log: rootLogger.child({ requestId: crypto.randomUUID() }),
    setCookie: (cookie) => opts.resHeaders.append("set-cookie", cookie),
    cluster: getClusterSource,
    clientAddress: clientAddressOf(opts.headers, opts.trustedProxies),
    secure: isSecureRequest({ url: opts.url, headers: opts.headers }),
  };
}
