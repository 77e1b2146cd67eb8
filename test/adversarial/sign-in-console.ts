import http from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { poster, type SignInTarget } from "@/bench/lib/sign-in-client";
import { stampPeerAddresses } from "@/server/services/auth/peer-address";

export { type Answer, retryAfterSeconds, signIn } from "@/bench/lib/sign-in-client";

/**
 * The console's real tRPC route handler (app/api/trpc/[trpc]/route.ts) served over HTTP as Next serves it,
 * with the connection-address stamp that instrumentation.ts installs in the console, so the limits see the
 * addresses the kernel saw. Its client, which picks each request's source address, is shared with
 * `npm run bench:abuse -- --part signin` (bench/lib/sign-in-client.ts).
 */
type RouteHandler = (request: Request) => Promise<Response>;

export type Console = SignInTarget & { close: () => Promise<void> };

function toRequest(req: http.IncomingMessage, body: Buffer, origin: string): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(key, one);
  }
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body: new Uint8Array(body) });
}

/**
 * Serves the route module as imported with `env` set (REBOUND_TRUSTED_PROXIES and the database), a fresh
 * module graph each time, so each console has its own settings and limiter, as a console process does.
 */
export async function startConsole(env: Record<string, string>): Promise<Console> {
  stampPeerAddresses();
  for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
  vi.resetModules();
  const route = (await import("@/app/api/trpc/[trpc]/route")) as { POST: RouteHandler };
  let origin = "";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void route.POST(toRequest(req, Buffer.concat(chunks), origin)).then(async (response) => {
        res.writeHead(response.status, [...response.headers.entries()].flat());
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    post: poster(origin),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
