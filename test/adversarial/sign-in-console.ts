import http from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { type Answer, poster, type SignInTarget } from "@/bench/lib/sign-in-client";
import { createDb, type Db } from "@/server/db/client";
import { stampPeerAddresses } from "@/server/services/auth/peer-address";
import { createSeededTestDatabase } from "@/test/database";

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

/** Sends `count` attempts one after another; the answers in order. */
export async function attempts(count: number, send: (index: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let index = 0; index < count; index++) answers.push(await send(index));
  return answers;
}

/**
 * A seeded database and two consoles on it: `direct` believes each connection's own address, `behindIngress`
 * believes the X-Forwarded-For that `ingress` (its one trusted proxy) sends.
 */
export async function startConsolePair(name: string, ingress: string) {
  const database = await createSeededTestDatabase(name);
  const db: Db = createDb(database.url);
  const direct = await startConsole({ DATABASE_URL: database.url });
  const behindIngress = await startConsole({ DATABASE_URL: database.url, REBOUND_TRUSTED_PROXIES: ingress });
  return {
    db,
    direct,
    behindIngress,
    async close() {
      vi.unstubAllEnvs();
      await direct.close();
      await behindIngress.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}
