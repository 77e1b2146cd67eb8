import type { AddressInfo } from "node:net";
import { initTRPC, TRPCError } from "@trpc/server";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { subscribe } from "./sse";

/** The bench's SSE reader against a real tRPC 11 server speaking httpSubscriptionLink's wire format. */
const t = initTRPC.context<{ token: string }>().create({ transformer: superjson });
const router = t.router({
  frames: t.procedure
    .input(z.object({ count: z.number(), fail: z.boolean() }))
    .subscription(async function* ({ input, ctx }) {
      for (let i = 0; i < input.count; i += 1) yield { i, at: new Date(1000 * i), who: ctx.token };
      if (input.fail) throw new TRPCError({ code: "UNAUTHORIZED", message: "token revoked" });
    }),
  forever: t.procedure.subscription(async function* ({ signal }) {
    yield { kind: "snapshot" };
    await new Promise((resolve) => signal?.addEventListener("abort", resolve));
  }),
});

let server: ReturnType<typeof createHTTPServer>;
let baseUrl = "";

beforeAll(async () => {
  server = createHTTPServer({
    router,
    basePath: "/api/trpc/",
    createContext: ({ req }) => ({ token: String(req.headers["x-token"] ?? "") }),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function collect(path: string, input: unknown) {
  const values: unknown[] = [];
  const subscription = subscribe({
    baseUrl,
    path,
    input,
    headers: { "x-token": "tv-1" },
    onValue: (value) => values.push(value),
  });
  return { values, subscription };
}

describe("subscribe", () => {
  it("hands over every value deserialized (dates too), with the header sent, then says the server ended it", async () => {
    const { values, subscription } = collect("frames", { count: 3, fail: false });
    await expect(subscription.ended).resolves.toBe("the server ended the stream");
    expect(values).toEqual([0, 1, 2].map((i) => ({ i, at: new Date(1000 * i), who: "tv-1" })));
  });

  it("ends with the server's error message", async () => {
    const { values, subscription } = collect("frames", { count: 1, fail: true });
    await expect(subscription.ended).resolves.toMatch(/error: token revoked/);
    expect(values).toHaveLength(1);
  });

  it("says a bad input ended the stream, with the reason", async () => {
    const { values, subscription } = collect("frames", { count: "many" });
    await expect(subscription.ended).resolves.toMatch(/with an error: .*expected number, received string/s);
    expect(values).toEqual([]);
  });

  it("says a path the server does not have is refused", async () => {
    const { subscription } = collect("nothing.here", {});
    await expect(subscription.ended).resolves.toMatch(/^refused: 404/);
  });

  it("ends as closed when the viewer closes it", async () => {
    const { values, subscription } = collect("forever", undefined);
    while (values.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    subscription.close();
    await expect(subscription.ended).resolves.toBe("closed");
  });
});
