import { randomBytes } from "node:crypto";
import { type IncomingMessage, Server } from "node:http";

/**
 * The connection's own address, for client-address.ts. Next gives a route handler only the request's
 * headers, and fills X-Forwarded-For from the socket only when the client sent none (node_modules/next
 * dist/server/base-server.js: `x-forwarded-for ??=`), so a client could name any address. Instead, every
 * request the console's HTTP server receives gets PEER_HEADER set (over whatever the client sent) to a
 * per-process secret and the socket's address; only a value carrying that secret is believed. Installed at
 * start by instrumentation.ts; without it no request has a known peer (client-address.ts: "unknown"), nor
 * has one that reached the server while it was still starting, before the hook ran.
 */
export const PEER_HEADER = "x-rebound-peer";
const SECRET = Symbol.for("rebound.peerAddressSecret");
type Stamped = { [SECRET]?: string };

export function stampPeerAddresses(): void {
  const global = globalThis as Stamped;
  if (global[SECRET]) return;
  const secret = randomBytes(16).toString("hex");
  global[SECRET] = secret;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const request = args[0] as IncomingMessage;
      request.headers[PEER_HEADER] = `${secret} ${request.socket.remoteAddress ?? ""}`;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}

/** The address stamped on this request, or undefined when it was not stamped by this process. */
export function peerAddressOf(headers: Headers): string | undefined {
  const secret = (globalThis as Stamped)[SECRET];
  const value = headers.get(PEER_HEADER);
  if (!secret || !value?.startsWith(`${secret} `)) return undefined;
  return value.slice(secret.length + 1) || undefined;
}
