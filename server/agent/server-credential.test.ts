import type { Server } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "@/server/log";
import { createAgentClient } from "@/server/operator/agent-client";
import { openWatch } from "@/server/operator/presence/watch-client";
import { createAgent } from "./agent";
import { type AgentConfig, parseAgentArgs } from "./cli";
import { AGENT_CREDENTIAL_ENV, agentProcessEnv, takeAgentCredential } from "./env";
import { createAgentServer, listen } from "./server";

const CREDENTIAL = "pod-credential-7d1e";
/** A hot spare runs no workers: /start and /stop change only the agent's state. */
const SPARE_START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "h", master_port: 1, spare: true };
const quiet = { ...createLogger(), info: () => undefined, warn: () => undefined };

function agent() {
  const parsed = parseAgentArgs(["--nproc-per-node", "1", "train.py"]);
  if (parsed.kind !== "config") throw new Error("bad config");
  const config: AgentConfig = parsed.config;
  return createAgent({
    config,
    agentId: "test",
    baseEnv: {},
    runner: { python: "python3", node: "node", tsxLoader: "tsx" },
    logger: quiet,
    output: { write: () => undefined },
    now: Date.now,
  });
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function serve(credential: string | null) {
  const a = agent();
  const server = createAgentServer({ agent: a, logger: quiet, credential, watch: true });
  servers.push(server);
  const port = await listen(server, { host: "127.0.0.1", port: 0 });
  a.markReady();
  return { agent: a, base: `http://127.0.0.1:${port}` };
}

const call = (url: string, init: { method?: string; authorization?: string; body?: unknown } = {}) =>
  fetch(url, {
    method: init.method ?? "GET",
    headers: {
      ...(init.authorization ? { authorization: init.authorization } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

describe("an agent given a credential", () => {
  it("answers 401 to /start, /stop, /update, /shutdown, /status and the watch without it, and changes nothing", async () => {
    const { agent: a, base } = await serve(CREDENTIAL);
    const posts = [
      ["/start", SPARE_START],
      ["/update", SPARE_START],
      ["/stop", {}],
      ["/shutdown", undefined],
    ] as const;
    for (const [path, body] of posts) {
      const response = await call(`${base}${path}`, { method: "POST", body });
      expect(response.status, path).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual({ detail: "Unauthorized: this agent answers only its operator" });
    }
    expect((await call(`${base}/status`)).status).toBe(401);
    expect((await call(`${base}/rebound/v1/watch?heartbeat_ms=100`)).status).toBe(401);
    expect(a.status().status).toBe("ready");
  });

  it("answers 401 to a wrong credential, another scheme, and the credential of another pod", async () => {
    const { agent: a, base } = await serve(CREDENTIAL);
    for (const authorization of [
      "Bearer wrong",
      `Basic ${CREDENTIAL}`,
      CREDENTIAL,
      `Bearer ${CREDENTIAL}x`,
      `Bearer ${CREDENTIAL.slice(0, -1)}`,
    ]) {
      const response = await call(`${base}/start`, { method: "POST", authorization, body: SPARE_START });
      expect(response.status, authorization).toBe(401);
    }
    expect(a.status().status).toBe("ready");
  });

  it("keeps /healthz and /metrics open (probes and Prometheus carry no credential)", async () => {
    const { base } = await serve(CREDENTIAL);
    expect((await call(`${base}/healthz`)).status).toBe(200);
    const metrics = await call(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("# TYPE");
  });

  it("obeys the operator's client, which sends the pod's credential on every call", async () => {
    const { agent: a, base } = await serve(CREDENTIAL);
    const client = createAgentClient({
      timeoutMs: 2000,
      credentialFor: (url) => (url === base ? CREDENTIAL : null),
    });
    expect(await client.status(base)).toMatchObject({ ok: true, value: { status: "ready" } });
    expect(await client.start(base, SPARE_START)).toMatchObject({ ok: true });
    expect(a.status().status).toBe("running");
    expect(await client.stop(base, {})).toMatchObject({ ok: true });
    // Without the credential (another client) the same call is rejected, and says why.
    const stranger = createAgentClient({ timeoutMs: 2000 });
    expect(await stranger.start(base, SPARE_START)).toMatchObject({
      ok: false,
      error: { cause: "rejected", detail: expect.stringContaining("HTTP 401") },
    });
  });

  it("opens the watch stream for the operator's credential, refuses it (401) for anyone else", async () => {
    const { base } = await serve(CREDENTIAL);
    const open = (credential: string | null) =>
      new Promise<string>((resolve) => {
        const handle = openWatch({
          url: base,
          heartbeatMs: 50,
          connectTimeoutMs: 2000,
          credential,
          events: {
            opened: () => {
              handle.close();
              resolve("opened");
            },
            line: () => undefined,
            heartbeat: () => undefined,
            refused: (status) => resolve(`refused ${status}`),
            closed: (reason) => resolve(`closed ${reason}`),
          },
        });
      });
    expect(await open(CREDENTIAL)).toBe("opened");
    expect(await open(null)).toBe("refused 401");
    expect(await open("wrong")).toBe("refused 401");
  });
});

describe("an agent without a credential (as the unchanged hyperpod-elastic-agent)", () => {
  it("answers anyone, and ignores a credential it was sent", async () => {
    const { agent: a, base } = await serve(null);
    expect((await call(`${base}/status`)).status).toBe(200);
    const client = createAgentClient({ timeoutMs: 2000, credentialFor: () => "anything" });
    expect(await client.start(base, SPARE_START)).toMatchObject({ ok: true });
    expect(a.status().status).toBe("running");
  });
});

describe("the credential in the agent's environment", () => {
  it("is taken out of it: the workers' environment never holds it", () => {
    vi.stubEnv(AGENT_CREDENTIAL_ENV, CREDENTIAL);
    expect(agentProcessEnv()[AGENT_CREDENTIAL_ENV]).toBeUndefined();
    expect(takeAgentCredential()).toBe(CREDENTIAL);
    // Taken: read again, it is no longer there.
    expect(takeAgentCredential()).toBeNull();
    vi.unstubAllEnvs();
  });
});
