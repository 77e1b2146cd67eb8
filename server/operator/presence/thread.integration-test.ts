import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { buildOperator, OPERATOR_DIST } from "@/scripts/lib/operator-build";
import {
  type AgentHandle,
  cleanupAgents,
  DEMO_TRAINER,
  startAgent,
} from "@/server/agent/testing/agent-harness";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { capturingLogger } from "@/test/capturing-log";
import { DEFAULT_PRESENCE_CONFIG, type Presence, type PresenceConfig, type WatchedPod } from "./presence";
import { createPresenceThread, startPresenceWorker } from "./thread";

/**
 * Presence on its own thread (thread.ts): the real agent pushes to it; the agent is SIGSTOPped while the
 * operator's own thread is busy for 1.5 s (as a long reconcile of a large job holds it). The agent is
 * judged silent during that time, within the threshold, not after the operator's thread is free again.
 * Twice: with the thread bundled from its source at start (the operator under tsx, as in tests), and with
 * the operator bundle's presence-thread.mjs (scripts/lib/operator-build.ts: what deploy/ and npm start run).
 */

const { log, logs } = capturingLogger();

let agent: AgentHandle | undefined;
let presence: Presence | undefined;

afterEach(async () => {
  if (agent?.child.pid) process.kill(agent.child.pid, "SIGCONT");
  presence?.stop();
  await cleanupAgents();
});

const NO_PREBUILT = new URL("file:///nonexistent/presence-thread.mjs");
const starts = [
  ["bundled from its source at start", (config: PresenceConfig) => startPresenceWorker(config, NO_PREBUILT)],
  [
    "the operator bundle's thread",
    async (config: PresenceConfig) => {
      await buildOperator();
      const built = pathToFileURL(`${OPERATOR_DIST}/presence-thread.mjs`);
      // Else startPresenceWorker would quietly bundle the source instead.
      if (!existsSync(built)) throw new Error(`${built} was not built`);
      return startPresenceWorker(config, built);
    },
  ],
] as const;

async function until<T>(what: string, probe: () => T | null | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Holds this thread for `ms` without yielding to its event loop. */
function busy(ms: number): number {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // spin
  }
  return Date.now();
}

describe.each(starts)("presence on its own thread, %s", (_name, start) => {
  it("judges a frozen agent silent while the operator's thread is busy", async () => {
    agent = await startAgent({
      args: ["--server-port=0", "--server-host=127.0.0.1", "--nproc-per-node=1", "--nnodes=1", DEMO_TRAINER],
    });
    presence = createPresenceThread({
      config: { ...DEFAULT_PRESENCE_CONFIG, settleMs: 0 },
      log,
      metrics: createOperatorMetrics(),
      start,
    });
    const pod: WatchedPod = {
      namespace: "ns",
      name: "job-worker-0",
      phase: "Running",
      agentUrl: `http://127.0.0.1:${agent.port}`,
      createdAt: 1000,
    };
    const watching = presence;
    watching.sync("ns/job", [pod]);
    const first = await until("the agent's first pushed line", () => watching.pushed(pod));
    expect(first.kind).toBe("status");
    expect(watching.stats()).toMatchObject({ pushing: 1, silent: 0 });
    // Frozen, and this thread held for 1.5 s.
    const pid = agent.child.pid as number;
    process.kill(pid, "SIGSTOP");
    const frozenAt = Date.now();
    const freeAt = busy(1500);
    const view = await until("the silence", () => {
      const seen = watching.pushed(pod);
      return seen?.kind === "silent" ? seen : null;
    });
    // Judged on the presence thread during the block: 700 ms of silence and a 50 ms sweep after it was
    // last heard, well before this thread was free; in-thread, the judgement would wait for the block's end.
    expect(view.detectedAt).toBeLessThan(freeAt - 300);
    expect(view.detectedAt - view.lastHeardAt).toBeGreaterThanOrEqual(DEFAULT_PRESENCE_CONFIG.silenceMs);
    expect(view.lastHeardAt).toBeGreaterThan(frozenAt - 1000);
    expect(logs.findLast((entry) => entry.msg === "agent silent")?.fields).toMatchObject({ pod: pod.name });
    expect(logs.some((entry) => entry.msg.startsWith("presence thread ended"))).toBe(false);
    expect(watching.stats()).toMatchObject({ pushing: 1, silent: 1 });
    // Heard again once it runs: no longer silent.
    process.kill(pid, "SIGCONT");
    await until("the agent heard again", () => watching.pushed(pod)?.kind === "status" || null);
  }, 60_000);
});
