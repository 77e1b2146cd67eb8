import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient } from "./agent-client";

/**
 * A misbehaving peer on loopback (not a stand-in for the agent: a deliberately broken server) to pin how
 * the client reports garbage, wrong shapes, errors and silence: as values, never as thrown errors.
 */
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/garbage/status") res.end("<html>not json</html>");
    else if (req.url === "/shape/status") res.end(JSON.stringify({ status: "dancing" }));
    else if (req.url === "/error/start") res.writeHead(422).end(JSON.stringify({ detail: "bad" }));
    else if (req.url === "/silent/status") return;
    else res.end(JSON.stringify({ status: "READY", agent_version: "1.1.0" }));
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
});
