import { describe, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createAgent } from "./agent";
import { type AgentConfig, parseAgentArgs } from "./cli";

function agent() {
  const parsed = parseAgentArgs(["--nproc-per-node", "2", "train.py"]);
  if (parsed.kind !== "config") throw new Error("bad config");
  const config: AgentConfig = parsed.config;
  return createAgent({
    config,
    agentId: "test",
    baseEnv: {},
    runner: { python: "python3", node: "node", tsxLoader: "tsx" },
    logger: { ...createLogger(), info: () => undefined },
    output: { write: () => undefined },
    now: () => Date.UTC(2025, 0, 1),
  });
}

const SPARE_START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "h", master_port: 1, spare: true };

describe("createAgent (no workers started)", () => {
  it("reports init until it listens, then ready", () => {
    const a = agent();
    expect(a.status().status).toBe("init");
    a.markReady();
    expect(a.status().status).toBe("ready");
  });

  it("refuses /start before READY and twice in a row", () => {
    const a = agent();
    expect(a.start(SPARE_START)).toEqual({
      ok: false,
      status: 409,
      detail: "Invalid state transition from INIT to RUNNING",
    });
    a.markReady();
    expect(a.start(SPARE_START)).toEqual({ ok: true });
    expect(a.start(SPARE_START)).toMatchObject({ ok: false, status: 409 });
  });

  it("lets a hot spare run without workers, and stops it back to READY", async () => {
    const a = agent();
    a.markReady();
    a.start({ ...SPARE_START, ipVersion: "v7" });
    expect(a.status()).toMatchObject({
      status: "running",
      spare: "True",
      ipversion: "v7",
      assigned_rank: "0",
    });
    // A spare runs no workers: its rank list is there, and empty.
    expect(a.status().ranks).toEqual([]);
    expect(a.stop({})).toEqual({ ok: true });
    expect(a.status().status).toBe("stopping");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(a.status().status).toBe("ready");
  });

  it("treats /stop while READY and /shutdown twice as no-ops; /update keeps the state", () => {
    const a = agent();
    a.markReady();
    expect(a.stop({})).toEqual({ ok: true });
    expect(a.update({ ...SPARE_START, rank: 3, spare: false })).toEqual({ ok: true });
    expect(a.status()).toMatchObject({ status: "ready", assigned_rank: "3", spare: "False" });
    expect(a.shutdown()).toEqual({ ok: true });
    expect(a.shutdown()).toEqual({ ok: true });
    expect(a.status().status).toBe("shutdown");
    expect(a.update(SPARE_START)).toMatchObject({ ok: false, status: 409 });
  });

  it("exposes Prometheus metrics", async () => {
    const a = agent();
    a.markReady();
    const text = await a.metrics();
    expect(text).toContain('rebound_agent_state{state="READY"} 1');
    expect(text).toContain("# TYPE rebound_agent_faults_total counter");
  });
});
