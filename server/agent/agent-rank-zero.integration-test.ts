import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import type { LogMonitoringRuleInput } from "@/server/domain/log-rules/log-rule.schema";
import {
  type AgentHandle,
  cleanupAgents,
  DEMO_TRAINER,
  startAgent,
  waitForExit,
} from "./testing/agent-harness";

/**
 * hyperpodrun's defaults on the real agent: log rules fault the job on local rank 0 only (every rank is
 * still reported, and a rank that goes silent is marked suspect), REBOUND_LOG_RULES_ALL_RANKS /
 * --log-rules-all-ranks opt in to every rank, and workers are stopped with SIGKILL unless
 * --shutdown-signal SIGTERM asks for a grace period.
 */

/** Prints `step=N` every 50 ms (only on local rank 0 with --only-rank0); --ignore-sigterm traps SIGTERM. */
const STEPPER = `
const rank = Number(process.env.LOCAL_RANK);
const onlyRank0 = process.argv.includes("--only-rank0");
if (process.argv.includes("--ignore-sigterm")) process.on("SIGTERM", () => console.log("ignoring SIGTERM"));
console.log("ready rank=" + rank);
let step = 0;
setInterval(() => {
  step += 1;
  if (!onlyRank0 || rank === 0) console.log("step=" + step + " loss=1.0");
}, 50);
`;

const START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };
const STEP_RULES: LogMonitoringRuleInput[] = [
  {
    name: "StepHang",
    logPattern: ".*step=\\d+.*",
    expectedStartCutOffInSeconds: 1,
    expectedRecurringFrequencyInSeconds: 1,
  },
];

let dir = "";
let stepper = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-rank0-"));
  stepper = path.join(dir, "stepper.mjs");
  await writeFile(stepper, STEPPER);
});

afterAll(async () => {
  await cleanupAgents();
  await rm(dir, { recursive: true, force: true });
});

function agentArgs(name: string, extra: readonly string[]): string[] {
  return [
    "--server-port=0",
    "--server-host=127.0.0.1",
    "--nproc-per-node=2",
    `--log-dir=${path.join(dir, name)}`,
    "--monitor-interval-ms=100",
    ...extra,
  ];
}

const start = (agent: AgentHandle, rules: LogMonitoringRuleInput[] = STEP_RULES) =>
  agent.request({ method: "POST", path: "/start", body: { ...START, log_monitoring_configuration: rules } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rank = (status: AgentStatus, localRank: number) => status.ranks?.[localRank];

describe("which ranks' log rules fault the job", () => {
  it("by default, a 2-rank job printing steps on rank 0 only is not faulted, rank 1's rule still shown", async () => {
    const agent = await startAgent({ args: agentArgs("default", [stepper, "--only-rank0"]) });
    expect((await start(agent)).status).toBe(200);
    await agent.waitFor((s) => rank(s, 1)?.rule_states.StepHang === "HANGING");
    await sleep(1500); // past both windows (1 s) again: nothing faults
    const status = await agent.status();
    expect(status.status).toBe("running");
    expect(rank(status, 0)).toMatchObject({ log_watched: true, rule_states: { StepHang: "HEALTHY" } });
    expect(rank(status, 1)).toMatchObject({
      log_watched: false,
      state: "running",
      rule_states: { StepHang: "HANGING" },
      last_line: "ready rank=1",
      suspect: true,
    });
  });

  it("REBOUND_LOG_RULES_ALL_RANKS=true faults the same job on rank 1's rule", async () => {
    const agent = await startAgent({
      args: agentArgs("opt-in", [stepper, "--only-rank0"]),
      env: { REBOUND_LOG_RULES_ALL_RANKS: "true" },
    });
    expect((await start(agent)).status).toBe(200);
    const { status } = await agent.waitFor((s) => s.status === "faulted");
    expect(status.reason).toBe("LogHang_StepHang");
    expect(rank(status, 1)).toMatchObject({ log_watched: true, rule_states: { StepHang: "HANGING" } });
    expect(await waitForExit(agent.workerPids)).toEqual([]);
  });
});

describe("a rank that stops printing (demo trainer hang), default rank-0 rules", () => {
  it("shows rank 1 suspect without faulting the job, then faults when rank 0 hangs", async () => {
    const control = path.join(dir, "control.json");
    const agent = await startAgent({
      args: agentArgs("suspect", [DEMO_TRAINER, "--step-ms=50", `--control-file=${control}`]),
    });
    const rules = [{ name: "StepHang", logPattern: ".*step=\\d+.*", expectedRecurringFrequencyInSeconds: 1 }];
    expect((await start(agent, rules)).status).toBe(200);
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 3));
    await writeFile(control, JSON.stringify({ kind: "hang", rank: 1, id: "hang-1" }));
    const { status: suspect } = await agent.waitFor((s) => rank(s, 1)?.suspect === true);
    expect(suspect.status).toBe("running");
    const hung = rank(suspect, 1);
    expect(Date.parse(hung?.suspect_since ?? "")).toBe(Date.parse(hung?.last_line_at ?? "") + 1000);
    expect(rank(suspect, 0)).toMatchObject({ suspect: false, rule_states: { StepHang: "HEALTHY" } });
    // Progress facts (the console's "no progress for N s"): rank 1's stop at its last step, rank 0's go on,
    // its usual interval about the trainer's 50 ms step (a loaded machine stretches a few).
    expect(hung?.last_progress_at).toBe(hung?.last_line_at);
    const healthy = rank(suspect, 0);
    expect(Date.parse(healthy?.last_progress_at ?? "")).toBeGreaterThan(
      Date.parse(hung?.last_progress_at ?? ""),
    );
    expect(healthy?.progress_interval_ms).toBeGreaterThanOrEqual(30);
    expect(healthy?.progress_interval_ms).toBeLessThanOrEqual(250);

    await writeFile(control, JSON.stringify({ kind: "hang", rank: 0, id: "hang-0" }));
    const { status } = await agent.waitFor((s) => s.status === "faulted");
    expect(status.reason).toBe("LogHang_StepHang");
    expect(status.message).toContain(`{'StepHang': '${rank(status, 0)?.last_line}\\n'}`);
  });
});

describe("stopping workers", () => {
  const stopAndTime = async (agent: AgentHandle) => {
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 2));
    const begin = Date.now();
    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const { status, at } = await agent.waitFor((s) => s.status === "ready", { intervalMs: 20 });
    return { status, ms: at - begin };
  };

  it("kills a worker that ignores SIGTERM at once by default (SIGKILL, as hyperpodrun)", async () => {
    const agent = await startAgent({ args: agentArgs("sigkill", [stepper, "--ignore-sigterm"]) });
    await start(agent, []);
    const { status, ms } = await stopAndTime(agent);
    expect(ms).toBeLessThan(5000); // a SIGTERM default would wait its 15 s grace on this worker
    expect(status.ranks?.map((r) => [r.state, r.signal])).toEqual([
      ["stopped", "SIGKILL"],
      ["stopped", "SIGKILL"],
    ]);
  });

  it("with --shutdown-signal SIGTERM waits --shutdown-timeout before SIGKILL", async () => {
    const agent = await startAgent({
      args: agentArgs("sigterm", [
        "--shutdown-signal",
        "SIGTERM",
        "--shutdown-timeout",
        "2",
        stepper,
        "--ignore-sigterm",
      ]),
    });
    await start(agent, []);
    const { status, ms } = await stopAndTime(agent);
    expect(ms).toBeGreaterThanOrEqual(2000);
    expect(status.ranks?.map((r) => r.signal)).toEqual(["SIGKILL", "SIGKILL"]);
  });
});
