import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpTransport } from "./agent-transport";

type Served = { url: string; connections: number; clientClosedAt: number[]; server: Server };

/** An agent-like server that counts connections and notes when the client (not itself) ended one. */
async function serve(keepAliveTimeoutMs: number): Promise<Served> {
  const served: Served = { url: "", connections: 0, clientClosedAt: [], server: createServer() };
  served.server.keepAliveTimeout = keepAliveTimeoutMs;
  served.server.on("request", (_request, response) => response.end("{}"));
  served.server.on("connection", (socket: Socket) => {
    served.connections += 1;
    socket.on("end", () => served.clientClosedAt.push(Date.now()));
  });
  await new Promise<void>((resolve) => served.server.listen(0, "127.0.0.1", resolve));
  served.url = `http://127.0.0.1:${(served.server.address() as AddressInfo).port}`;
  return served;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
};

describe("agent transport's connections", () => {
  it("reuses an idle connection, and closes it itself after 3.5–4 s idle, before the agent's 5 s", async () => {
    const agent = await serve(60_000);
    servers.push(agent.server);
    const send = createHttpTransport();
    const get = () => send({ method: "GET", url: `${agent.url}/status`, timeoutMs: 2000 });
    expect((await get()).ok).toBe(true);
    expect((await get()).ok).toBe(true);
    expect(agent.connections).toBe(1);
    const idleFrom = Date.now();
    expect(await until(() => agent.clientClosedAt.length === 1, 6000)).toBe(true);
    const idleFor = (agent.clientClosedAt[0] ?? 0) - idleFrom;
    expect(idleFor).toBeGreaterThanOrEqual(3400);
    expect(idleFor).toBeLessThan(5000);
    // The next call opens a new connection.
    expect((await get()).ok).toBe(true);
    expect(agent.connections).toBe(2);
  }, 15_000);

  it("closes sooner for an agent whose keep-alive is shorter (its hint, less a second)", async () => {
    const agent = await serve(2000);
    servers.push(agent.server);
    const send = createHttpTransport();
    expect((await send({ method: "GET", url: `${agent.url}/status`, timeoutMs: 2000 })).ok).toBe(true);
    const idleFrom = Date.now();
    expect(await until(() => agent.clientClosedAt.length === 1, 3000)).toBe(true);
    expect((agent.clientClosedAt[0] ?? 0) - idleFrom).toBeLessThan(1800);
  }, 10_000);

  it("keeps one idle connection per agent across many agents and closes every one", async () => {
    const agents = await Promise.all(Array.from({ length: 40 }, () => serve(60_000)));
    servers.push(...agents.map((agent) => agent.server));
    const send = createHttpTransport();
    for (let round = 0; round < 2; round += 1) {
      const results = await Promise.all(
        agents.map((agent) => send({ method: "GET", url: `${agent.url}/status`, timeoutMs: 2000 })),
      );
      expect(results.every((result) => result.ok)).toBe(true);
      expect(agents.map((agent) => agent.connections)).toEqual(agents.map(() => 1));
    }
    expect(await until(() => agents.every((agent) => agent.clientClosedAt.length === 1), 6000)).toBe(true);
  }, 15_000);
});
