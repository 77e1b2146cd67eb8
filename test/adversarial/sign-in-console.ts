import http from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { stampPeerAddresses } from "@/server/services/auth/peer-address";

/**
 * The console's real tRPC route handler (app/api/trpc/[trpc]/route.ts) served over HTTP as Next serves it,
 * with the connection-address stamp that instrumentation.ts installs in the console, so the limits see the
 * addresses the kernel saw. Clients choose their source address on the loopback network (127.0.0.0/8 is all
 * local on Linux), so "another address" is a real other address.
 */
type RouteHandler = (request: Request) => Promise<Response>;

export type Answer = { status: number; message: string; cookies: string[]; ms: number };

export type Console = {
  post: (opts: { path: string; input: unknown; from: string; forwardedFor?: string }) => Promise<Answer>;
  close: () => Promise<void>;
};

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

  const post: Console["post"] = (opts) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const body = JSON.stringify({ json: opts.input });
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          path: `/api/trpc/${opts.path}`,
          method: "POST",
          localAddress: opts.from,
          agent: false,
          headers: {
            "content-type": "application/json",
            ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const ms = performance.now() - started;
            const text = Buffer.concat(chunks).toString();
            const parsed = JSON.parse(text) as { error?: { json?: { message?: string } } };
            resolve({
              status: response.statusCode ?? 0,
              message: parsed.error?.json?.message ?? "ok",
              cookies: response.headers["set-cookie"] ?? [],
              ms,
            });
          });
        },
      );
      request.on("error", reject);
      request.end(body);
    });

  return {
    post,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const signIn = (
  target: Console,
  opts: { email: string; password: string; from: string; forwardedFor?: string },
) =>
  target.post({
    path: "auth.signIn",
    input: { email: opts.email, password: opts.password },
    from: opts.from,
    ...(opts.forwardedFor ? { forwardedFor: opts.forwardedFor } : {}),
  });

/** The seconds a refusal asks to wait ("… try again in N s"), or null when it is not a refusal. */
export const retryAfterSeconds = (answer: Answer): number | null => {
  const match = /try again in (\d+) s$/.exec(answer.message);
  return answer.status === 429 && match ? Number(match[1]) : null;
};
