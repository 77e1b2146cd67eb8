import { get, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createHeartbeats, createLineGate, WATCH_PATH } from "@/server/agent/watch";
import {
  closeServer,
  createStandInAgent,
  publish,
  type Running,
  serveStandInAgent,
  watchHandler,
} from "./stand-in-agents";

/** A stand-in agent served with its watch route, as startStandInAgents serves each pod's. */
async function served() {
  const heartbeats = createHeartbeats({ tickMs: 10 });
  const entry: Running = {
    key: "ns/pod-0",
    agent: createStandInAgent({ ranks: 2, stopDelayMs: 5, onChange: () => publish(entry) }),
    server: null,
    url: null,
    frozen: false,
    streams: new Set(),
    gate: createLineGate(),
  };
  const { server, port } = await serveStandInAgent(entry.agent, {
    frozen: () => entry.frozen,
    watch: watchHandler(entry, heartbeats),
  });
  entry.server = server;
  entry.url = `http://127.0.0.1:${port}`;
  return { entry, heartbeats };
}

type Read = { response: IncomingMessage; text: () => string; lines: () => string[]; stop: () => void };

function watch(url: string, heartbeatMs: number): Promise<Read> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}${WATCH_PATH}?heartbeat_ms=${heartbeatMs}`, { agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      resolve({
        response,
        text: () => text,
        lines: () => text.split("\n").filter((line) => line !== ""),
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

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("stand-in agents' watch", () => {
  it("sends the status first, a line at once on a state change, and heartbeats between", async () => {
    const { entry, heartbeats } = await served();
    cleanups.push(
      () => heartbeats.stop(),
      () => entry.server && closeServer(entry.server),
    );
    const stream = await watch(entry.url ?? "", 30);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers["content-type"]).toBe("application/x-ndjson");
    await until(() => stream.lines().length === 1);
    expect(JSON.parse(stream.lines()[0] ?? "").status).toBe("ready");
    await until(() => /\n\n/.test(stream.text()));
    entry.agent.start({ rank: 0, nnodes: 1, faultCount: 0, master_addr: "a", master_port: 1 });
    await until(() => stream.lines().length === 2);
    expect(JSON.parse(stream.lines()[1] ?? "").status).toBe("running");
    expect(heartbeats.count()).toBe(1);
    stream.stop();
    await until(() => heartbeats.count() === 0);
    expect(entry.streams.size).toBe(0);
  });

  it("a frozen agent sends nothing more and leaves requests unanswered", async () => {
    const { entry, heartbeats } = await served();
    cleanups.push(
      () => heartbeats.stop(),
      () => entry.server && closeServer(entry.server),
    );
    const stream = await watch(entry.url ?? "", 20);
    await until(() => /\n\n/.test(stream.text()));
    entry.frozen = true;
    await new Promise((resolve) => setTimeout(resolve, 40));
    const frozenAt = stream.text().length;
    entry.agent.fault("WorkerCrash", "boom");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(stream.text().length).toBe(frozenAt);
    const answered = await Promise.race([
      fetch(`${entry.url}/status`).then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 200)),
    ]);
    expect(answered).toBe(false);
    expect(stream.response.destroyed).toBe(false);
  });

  it("answers 404 on the watch route when served without one", async () => {
    const agent = createStandInAgent({ ranks: 1, stopDelayMs: 5 });
    const { server, port } = await serveStandInAgent(agent);
    cleanups.push(() => closeServer(server));
    const response = await fetch(`http://127.0.0.1:${port}${WATCH_PATH}`);
    expect(response.status).toBe(404);
  });
});
