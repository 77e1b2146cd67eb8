import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openWatch, type WatchEvents } from "./watch-client";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.close();
    server.closeAllConnections();
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recorder() {
  const seen: string[] = [];
  const events: WatchEvents = {
    opened: () => seen.push("opened"),
    line: (text) => seen.push(`line ${text}`),
    heartbeat: () => seen.push("heartbeat"),
    refused: (status) => seen.push(`refused ${status}`),
    closed: (reason) => seen.push(`closed ${reason.slice(0, 20)}`),
  };
  return { seen, events };
}

const until = async (check: () => boolean) => {
  const end = Date.now() + 2000;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("openWatch", () => {
  it("splits lines and heartbeats across chunks, and reports the end once", async () => {
    let query = "";
    const url = await serve((request, response) => {
      query = request.url ?? "";
      response.writeHead(200, { "content-type": "application/x-ndjson" });
      response.write('{"status":"re');
      setTimeout(() => response.write('ady"}\n\n\n{"status":"running"}\n'), 10);
      setTimeout(() => response.end(), 30);
    });
    const { seen, events } = recorder();
    openWatch({ url, heartbeatMs: 250, connectTimeoutMs: 1000, events });
    await until(() => seen.some((entry) => entry.startsWith("closed")));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(query).toBe("/rebound/v1/watch?heartbeat_ms=250");
    expect(seen).toEqual([
      "opened",
      'line {"status":"ready"}',
      "heartbeat",
      "heartbeat",
      'line {"status":"running"}',
      "closed stream ended",
    ]);
  });

  it("a 404 is a refusal (the agent does not push), not a close", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end('{"detail":"Not Found"}');
    });
    const { seen, events } = recorder();
    openWatch({ url, heartbeatMs: 250, connectTimeoutMs: 1000, events });
    await until(() => seen.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(["refused 404"]);
  });

  it("no answer in time, or a refused connection, closes without opening", async () => {
    const url = await serve(() => undefined);
    const { seen, events } = recorder();
    openWatch({ url, heartbeatMs: 250, connectTimeoutMs: 50, events });
    await until(() => seen.length > 0);
    expect(seen).toEqual(["closed no answer in time"]);
    const refused = recorder();
    openWatch({
      url: "http://127.0.0.1:1",
      heartbeatMs: 250,
      connectTimeoutMs: 1000,
      events: refused.events,
    });
    await until(() => refused.seen.length > 0);
    expect(refused.seen[0]).toMatch(/^closed Error: connect/);
  });
});
