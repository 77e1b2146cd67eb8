import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient } from "./agent-client";

/**
 * A misbehaving peer on loopback (not a stand-in for the agent: a deliberately broken server) to pin how
 * the client reports garbage, wrong shapes, errors and silence: as values, never as thrown errors.
 */
let server: Server;
let base: string;
/** Connections the server accepted, to see that polls reuse them. */
let connections = 0;

/** 17 MiB, past the client's 16 MiB cap, sent in 1 MiB pieces. */
function sendHuge(res: ServerResponse): void {
  const piece = Buffer.alloc(1024 * 1024, 0x20);
  for (let sent = 0; sent < 17; sent += 1) res.write(piece);
  res.end();
}

/** What each broken peer answers, by path; anything else gets a good HyperPod-style status. */
const ANSWERS: Record<string, ((res: ServerResponse) => void) | undefined> = {
  "/garbage/status": (res) => res.end("<html>not json</html>"),
  "/shape/status": (res) => res.end(JSON.stringify({ status: "dancing" })),
  "/error/start": (res) => res.writeHead(422).end(JSON.stringify({ detail: "bad" })),
  "/silent/status": () => {},
  "/huge/status": sendHuge,
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = ANSWERS[req.url ?? ""];
    if (answer) answer(res);
    else res.end(JSON.stringify({ status: "READY", agent_version: "1.1.0" }));
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const client = createAgentClient({ timeoutMs: 300 });

describe("agent client", () => {
  it("parses a HyperPod-style status (no ranks), upper-case state included", async () => {
    expect(await client.status(`${base}/ok`)).toMatchObject({ ok: true, value: { status: "ready" } });
  });

  it("reports garbage and unknown states as invalid-response", async () => {
    expect(await client.status(`${base}/garbage`)).toMatchObject({
      ok: false,
      error: { cause: "invalid-response" },
    });
    expect(await client.status(`${base}/shape`)).toMatchObject({
      ok: false,
      error: { cause: "invalid-response" },
    });
  });

  it("reports silence as a timeout and a closed port as unreachable", async () => {
    expect(await client.status(`${base}/silent`)).toMatchObject({ ok: false, error: { cause: "timeout" } });
    expect(await client.status("http://127.0.0.1:1")).toMatchObject({
      ok: false,
      error: { cause: "unreachable" },
    });
  });

  it("reports a refused command with its HTTP status", async () => {
    const result = await client.start(`${base}/error`, {
      rank: 0,
      nnodes: 1,
      faultCount: 0,
      master_addr: "a",
      master_port: "1",
    });
    expect(result).toMatchObject({
      ok: false,
      error: { cause: "rejected", detail: expect.stringContaining("HTTP 422") },
    });
  });

  it("polls one agent over one kept-alive connection", async () => {
    const polling = createAgentClient({ timeoutMs: 1000 });
    const before = connections;
    for (let poll = 0; poll < 20; poll += 1) {
      expect(await polling.status(`${base}/ok`)).toMatchObject({ ok: true });
    }
    expect(connections - before).toBe(1);
  });

  it("reports an answer past the size cap as invalid-response", async () => {
    expect(await createAgentClient({ timeoutMs: 5000 }).status(`${base}/huge`)).toMatchObject({
      ok: false,
      error: { cause: "invalid-response", detail: expect.stringContaining("larger than") },
    });
  });
});
