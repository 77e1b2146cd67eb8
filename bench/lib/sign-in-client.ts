import http from "node:http";
import { performance } from "node:perf_hooks";

/**
 * A tRPC client of the console that picks its source address, shared by `npm run bench:abuse -- --part
 * signin` (the built console) and the sign-in tests under test/adversarial/ (the route served in-process).
 * Clients choose their source address on the loopback network (127.0.0.0/8 is all local on Linux), so
 * "another address" is a real other address, the one the console's connection-address stamp sees.
 */
export type Answer = { status: number; message: string; cookies: string[]; ms: number };

export type PostOptions = { path: string; input: unknown; from: string; forwardedFor?: string };

export type SignInTarget = { post: (opts: PostOptions) => Promise<Answer> };

/** Posts to `origin`'s /api/trpc/<path> from the address `from`, timing the request to its last byte. */
export function poster(origin: string): SignInTarget["post"] {
  const { hostname, port } = new URL(origin);
  return (opts) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const body = JSON.stringify({ json: opts.input });
      const request = http.request(
        {
          host: hostname,
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
          response.on("error", reject);
          response.on("end", () => {
            const ms = performance.now() - started;
            const text = Buffer.concat(chunks).toString();
            resolve({
              status: response.statusCode ?? 0,
              message: messageOf(text),
              cookies: response.headers["set-cookie"] ?? [],
              ms,
            });
          });
        },
      );
      request.on("error", reject);
      request.end(body);
    });
}

/** tRPC's error message, "ok" for an answer without one, or the text itself when it is not JSON. */
function messageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { json?: { message?: string } } };
    return parsed.error?.json?.message ?? "ok";
  } catch {
    return text;
  }
}

export const signIn = (
  target: SignInTarget,
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
