import { createServer, get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  COALESCE_MS,
  createLineGate,
  createStatusWatch,
  heartbeatMsOf,
  urgentKey,
  WATCH_PATH,
} from "./watch";

type Read = { response: IncomingMessage; text: () => string; lines: () => unknown[]; stop: () => void };

function watch(url: string): Promise<Read> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      resolve({
        response,
        text: () => text,
        lines: () =>
          text
            .split("\n")
            .filter((line) => line !== "")
            .map((line) => JSON.parse(line) as unknown),
        stop: () => request.destroy(),
      });
    });
    request.on("error", reject);
  });
}

const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(status: () => { status: string; step?: number }) {
  const statusWatch = createStatusWatch({ status, checkMs: 5 });
  const server = createServer((request, response) => statusWatch.attach(request, response));
  servers.push(server);
  server.on("close", () => statusWatch.stop());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}${WATCH_PATH}`, statusWatch, server };
}

describe("heartbeatMsOf", () => {
  it("reads heartbeat_ms, bounded, with a default", () => {
    expect(heartbeatMsOf("/rebound/v1/watch")).toBe(250);
    expect(heartbeatMsOf("/rebound/v1/watch?heartbeat_ms=100")).toBe(100);
    expect(heartbeatMsOf("/rebound/v1/watch?heartbeat_ms=1")).toBe(20);
    expect(heartbeatMsOf("/rebound/v1/watch?heartbeat_ms=abc")).toBe(250);
  });
});

describe("the line gate", () => {
  it("lets a state change through at once and coalesces other changes to one a second", () => {
    let now = 0;
    const gate = createLineGate(() => now);
    expect(gate.next("running", () => "a")).toBe("a");
    now = 10;
    expect(gate.next("running", () => "b")).toBeNull();
    expect(gate.next("faulted", () => "c")).toBe("c");
    now = 10 + COALESCE_MS;
    expect(gate.next("faulted", () => "d")).toBe("d");
    now += COALESCE_MS;
    expect(gate.next("faulted", () => "d")).toBeNull();
  });
});

describe("what goes out at once (urgentKey)", () => {
  const rank = (state: string, step: number | null, restarts = 0) => ({ state, step, restarts });
  it("changes with a rank's crash, restart or first step, not with its next steps", () => {
    const key = (ranks: ReturnType<typeof rank>[]) => urgentKey({ status: "running", ranks });
    const stepping = key([rank("running", 10), rank("running", 10)]);
    expect(key([rank("running", 11), rank("running", 12)])).toBe(stepping);
    expect(key([rank("crashed", 10), rank("running", 10)])).not.toBe(stepping);
    expect(key([rank("running", null, 1), rank("running", 10)])).not.toBe(stepping);
    expect(key([rank("running", null, 1), rank("running", 10)])).not.toBe(
      key([rank("running", 11, 1), rank("running", 10)]),
    );
    expect(urgentKey({ status: "ready" })).toBe("ready");
  });
});

describe("createStatusWatch", () => {
  it("sends the status first, a line on a state change, heartbeats between, and forgets closed watchers", async () => {
    let state = { status: "ready" };
    const { url, statusWatch } = await serve(() => state);
    const first = await watch(`${url}?heartbeat_ms=20`);
    const second = await watch(`${url}?heartbeat_ms=1000`);
    expect(first.response.headers["content-type"]).toBe("application/x-ndjson");
    await until(() => first.lines().length === 1 && second.lines().length === 1);
    await until(() => first.text().endsWith("\n\n"));
    state = { status: "running" };
    await until(() => first.lines().length === 2 && second.lines().length === 2);
    expect(first.lines()[1]).toEqual({ status: "running" });
    // A POST's command is looked at at once (poke), not at the next check.
    state = { status: "stopping" };
    statusWatch.poke();
    expect(first.lines().length).toBe(2);
    await until(() => first.lines().length === 3);
    first.stop();
    second.stop();
  });

  it("a closing agent server ends its watch streams", async () => {
    const { url, server } = await serve(() => ({ status: "ready" }));
    const stream = await watch(url);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await until(() => stream.response.complete || stream.response.destroyed);
  });
});
