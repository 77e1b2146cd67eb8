import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { promtoolCheckMetrics } from "@/server/metrics/promtool";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { type AgentTransport, bodyText, createHttpTransport } from "./agent-transport";
import { injectFault } from "./api/faults";
import { handleRequest } from "./api/routes";
import { demoJobYaml } from "./testing/jobs";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * The operator drives the agent only through HyperPod's protocol
 * (docs/hyperpod-compatibility.md, "The agent protocol"): every exchange between the real operator and the
 * real agent is recorded and checked against HyperPod's routes and keys. The same run checks both /metrics
 * with promtool, and that a frozen agent is a fault, not a hang.
 */
const START_KEYS = [
  "rank",
  "nnodes",
  "faultCount",
  "master_addr",
  "master_port",
  "log_monitoring_configuration",
  "ipVersion",
  "rankIps",
  "worker_data",
  "spare",
  "progress",
];
const STOP_KEYS = ["restart_mode", "is_graceful", "timeout"];
const STATUS_KEYS = [
  "status",
  "transitions",
  "reason",
  "message",
  "restartMode",
  "worker_data",
  "rank_labels",
  "ipversion",
  "progress",
  "agent_version",
  "assigned_rank",
  "spare",
  "priority",
];
/** Rebound's documented additions to /status. */
const STATUS_EXTENSIONS = ["ranks", "fault_at"];
const AGENT_STATES = ["init", "ready", "running", "completed", "faulted", "stopping", "shutdown"];

type Exchange = { method: string; path: string; body: unknown; status: number; response: unknown };
const exchanges: Exchange[] = [];

const http = createHttpTransport();
const recordingTransport: AgentTransport = async (req) => {
  const result = await http(req);
  if (result.ok) {
    exchanges.push({
      method: req.method,
      path: new URL(req.url).pathname,
      body: req.body === undefined ? undefined : JSON.parse(bodyText(req.body)),
      status: result.value.status,
      response: result.value.text ? JSON.parse(result.value.text) : undefined,
    });
  }
  return result;
};

let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let api: Server;
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "contract" };

beforeAll(async () => {
  database = await createSeededTestDatabase("it_contract");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 2,
    transport: recordingTransport,
    config: { agentTimeoutMs: 1000, podStartGraceMs: 1000, stopTimeoutSeconds: 5 },
  });
  api = createServer(
    (req, res) =>
      void handleRequest({ req, res, deps: operator.deps, auth: operator.auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 2, gpusPerPod: 2 }));
  await running();
  injectFault({
    backend: operator.backend,
    live: operator.deps.live,
    ref,
    input: { kind: "crash", rank: 1 },
  });
  await recovered(1);
}, 120_000);

afterAll(async () => {
  api?.close();
  await operator?.stop();
  await database?.drop();
}, 60_000);

function running() {
  return operator.waitFor(
    "job running",
    () => {
      const live = operator.live(ref);
      // Both ranks listed by the agent with their processes (the agent answers /start before forking).
      const ranks = live?.pods.flatMap((pod) => pod.ranks.filter((rank) => rank.pid !== null)) ?? [];
      return live?.phase === "Running" && live.ranksRunning === 2 && ranks.length === 2 ? live : null;
    },
    60_000,
  );
}

function recovered(count: number) {
  return operator.waitFor(`restart #${count}`, async () => {
    const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
    return events[count - 1]?.outcome === "recovered" ? events[count - 1] : null;
  });
}

describe("operator ⇄ agent contract (HyperPod's protocol)", () => {
  it("uses only the protocol's routes and methods", () => {
    const routes = new Set(exchanges.map((exchange) => `${exchange.method} ${exchange.path}`));
    expect(
      [...routes].every((route) =>
        ["GET /status", "POST /start", "POST /stop", "POST /update", "POST /shutdown"].includes(route),
      ),
    ).toBe(true);
    expect(routes).toContain("POST /start");
    expect(routes).toContain("POST /stop");
  });

  it("sends /start with HyperPod's keys, the required ones always present", () => {
    const starts = exchanges.filter((exchange) => exchange.path === "/start");
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const start of starts) {
      const body = start.body as Record<string, unknown>;
      expect(Object.keys(body).filter((key) => !START_KEYS.includes(key))).toEqual([]);
      expect(body).toMatchObject({
        rank: 0,
        nnodes: 1,
        master_addr: expect.any(String),
        master_port: expect.any(String),
      });
      expect(start.status).toBe(200);
    }
    expect(starts.map((start) => (start.body as { faultCount: number }).faultCount)).toEqual([0, 1]);
  });

  it("sends /stop with only HyperPod's keys", () => {
    for (const stop of exchanges.filter((exchange) => exchange.path === "/stop")) {
      expect(Object.keys((stop.body ?? {}) as object).filter((key) => !STOP_KEYS.includes(key))).toEqual([]);
    }
  });

  it("gets /status answers whose keys are HyperPod's plus Rebound's documented extensions", () => {
    const answers = exchanges
      .filter((exchange) => exchange.path === "/status")
      .map((exchange) => exchange.response as Record<string, unknown>);
    expect(answers.length).toBeGreaterThanOrEqual(3);
    const allowed = [...STATUS_KEYS, ...STATUS_EXTENSIONS];
    for (const answer of answers) {
      expect(Object.keys(answer).filter((key) => !allowed.includes(key))).toEqual([]);
      expect(AGENT_STATES).toContain(answer.status);
      for (const state of Object.keys((answer.transitions ?? {}) as object))
        expect(AGENT_STATES).toContain(state.toLowerCase());
    }
    const faulted = answers.find((answer) => answer.status === "faulted");
    expect(faulted).toMatchObject({
      reason: "WorkerCrash",
      message: expect.stringContaining("Local Rank 1 exited"),
    });
  });
});

describe("Prometheus /metrics", () => {
  it("the operator's passes promtool and carries the HyperPod series", async () => {
    const { port } = api.address() as AddressInfo;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(await promtoolCheckMetrics(text)).toEqual({ ok: true, output: "" });
    expect(text).toContain(
      `hyperpod_training_operator_jobs_created_total{namespace="hyperpod-ns-llm-research"} 1`,
    );
    expect(text).toContain(
      `hyperpod_training_operator_jobs_restarted_total{namespace="hyperpod-ns-llm-research",job_name="contract",restart_type="PLR"} 1`,
    );
    expect(text).toMatch(
      /hyperpod_training_operator_jobs_fault_detection_latency_count\{[^}]*fault_reason="WorkerCrash"\} 1/,
    );
    // Label order carries no meaning (prom-client writes le first).
    expect(text).toMatch(/hyperpod_training_operator_jobs_restart_latency_bucket\{[^}]*le="\+Inf"[^}]*\} 1/);
  });

  it("the agent's passes promtool", async () => {
    const url = operator.backend.pods.list(ref)[0]?.agentUrl;
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain("rebound_agent_");
    expect(await promtoolCheckMetrics(text)).toEqual({ ok: true, output: "" });
  });
});

describe("an agent that stops answering", () => {
  it("is a fault (AgentUnreachable): its pod is replaced and the job runs again", async () => {
    const pod = operator.backend.pods.list(ref)[0];
    const pid = pod ? operator.backend.pods.pidOf(pod.namespace, pod.name) : null;
    expect(pid).not.toBeNull();
    process.kill(pid as number, "SIGSTOP");
    const event = await recovered(2);
    expect(event).toMatchObject({ faultReason: "AgentUnreachable", action: "POD_REPLACEMENT" });
    await running();
    expect(operator.backend.pods.pidOf(ref.namespace, pod?.name ?? "")).not.toBe(pid);
  });
});
