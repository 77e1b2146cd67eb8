import superjson from "superjson";

/**
 * The bench's own tRPC calls to the console over plain HTTP (one procedure per request, superjson on the wire,
 * as the browser's httpBatchLink sends them unbatched): sign in, then queries and mutations with the session
 * cookie, as the cluster admin of the demo seed.
 */
export type ConsoleSession = {
  cookie: string;
  query<T>(path: string, input?: unknown): Promise<T>;
  mutate<T>(path: string, input?: unknown): Promise<T>;
};

type Envelope = { result?: { data?: unknown }; error?: { json?: { message?: string } } };

async function answer<T>(path: string, response: Response): Promise<T> {
  const body = (await response.json().catch(() => null)) as Envelope | null;
  if (!response.ok || !body?.result) {
    const message = body?.error?.json?.message ?? `${response.status} ${response.statusText}`;
    throw new Error(`${path}: ${message}`);
  }
  return superjson.deserialize(body.result.data as Parameters<typeof superjson.deserialize>[0]) as T;
}

export async function signIn(
  baseUrl: string,
  credentials: { email: string; password: string },
): Promise<ConsoleSession> {
  const response = await fetch(`${baseUrl}/api/trpc/auth.signIn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(superjson.serialize(credentials)),
  });
  await answer("auth.signIn", response);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => pair !== "")
    .join("; ");
  if (!cookie) throw new Error("auth.signIn: no session cookie in the answer");
  return {
    cookie,
    async query<T>(path: string, input?: unknown) {
      const query =
        input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
      return answer<T>(path, await fetch(`${baseUrl}/api/trpc/${path}${query}`, { headers: { cookie } }));
    },
    async mutate<T>(path: string, input?: unknown) {
      const response = await fetch(`${baseUrl}/api/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(superjson.serialize(input ?? null)),
      });
      return answer<T>(path, response);
    },
  };
}
