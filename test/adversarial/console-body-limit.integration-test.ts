import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrate } from "@/server/db/migrate";
import { postLyingLength, postStreamed, rssBytes } from "@/server/http/testing/oversized-bodies";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16 item 5: a 200 MB body to `auth.signIn` took 1.95 s to refuse and grew the console by ~800 MB.
 * Here the console's real tRPC route handler (app/api/trpc/[trpc]/route.ts, on a real database) is served
 * the way Next serves it (the request's Node stream as the body, read on demand); the built console gets
 * the same attacks in e2e/security-headers.api.spec.ts. Bounds are generous for a loaded 2-core machine;
 * `npm run bench:abuse` prints the real figures.
 */
const MB = 1024 * 1024;
let database: { url: string; drop: () => Promise<void> };
let server: http.Server;
let signInUrl: string;

type RouteHandler = (request: Request) => Promise<Response>;

/** What Next does for a route handler: a web Request whose body is the IncomingMessage, unread. */
function toRequest(req: http.IncomingMessage, origin: string): Request {
  const headers = new Headers();
  const pairs = Object.entries(req.headers).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((one) => [key, one] as const),
  );
  for (const [key, one] of pairs) if (one !== undefined) headers.append(key, one);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`${origin}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? (req as unknown as ReadableStream<Uint8Array>) : null,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
}

async function serve(handler: RouteHandler): Promise<http.Server> {
  const origin = { value: "" };
  const httpServer = http.createServer((req, res) => {
    void handler(toRequest(req, origin.value)).then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  origin.value = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  return httpServer;
}

beforeAll(async () => {
  database = await createTestDatabase("adv_body_limit");
  await migrate(database.url);
  vi.stubEnv("DATABASE_URL", database.url);
  const route = (await import("@/app/api/trpc/[trpc]/route")) as { POST: RouteHandler };
  server = await serve(route.POST);
  signInUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc/auth.signIn`;
  // Warm-up: modules loaded and a first answer served, so the figures below are the bodies' own.
  await postStreamed({ url: signInUrl, totalBytes: 2 * MB });
}, 120_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server?.close(resolve));
  await database?.drop();
});

describe("console request bodies (issue 16 item 5)", () => {
  it("a body within the limit is still parsed: a wrong sign-in is refused as such", async () => {
    const response = await fetch(signInUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { email: "nobody@rebound.local", password: "wrong-password" } }),
    });
    expect(response.status).toBe(401);
  });

  it("three concurrent 200 MB streamed bodies each get 413 quickly and the console's memory stays flat", async () => {
    global.gc?.();
    const before = rssBytes(process.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(process.pid));
    }, 10);
    const refusals = await Promise.all(
      [0, 1, 2].map(() => postStreamed({ url: signInUrl, totalBytes: 200 * MB })),
    );
    clearInterval(sampler);
    for (const refusal of refusals) {
      expect(refusal.status).toBe(413);
      expect(JSON.parse(refusal.body)).toMatchObject({
        error: {
          json: { data: { code: "PAYLOAD_TOO_LARGE" }, message: expect.stringMatching(/1048576 bytes/) },
        },
      });
      expect(refusal.ms).toBeLessThan(3000);
    }
    // Unbounded, the three bodies grew the console by ~2 GB; bounded, a few MB (client and server together).
    expect((Math.max(peak, rssBytes(process.pid)) - before) / MB).toBeLessThan(50);
  });

  it("a Content-Length of 200 MB gets 413 at once, before the body is sent", async () => {
    const refusal = await postLyingLength({ url: signInUrl, declaredBytes: 200 * MB });
    expect(refusal.status).toBe(413);
    expect(refusal.ms).toBeLessThan(3000);
  });
});
