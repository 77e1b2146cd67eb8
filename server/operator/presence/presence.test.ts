import { describe, expect, it } from "vitest";
import { rankEntry } from "@/server/cluster/kubernetes/testing/stand-in-agents";
import type { ClusterPod } from "@/server/cluster/types";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { capturingLogger } from "@/test/capturing-log";
import {
  createPresence,
  DEFAULT_PRESENCE_CONFIG,
  type Dial,
  type PresenceConfig,
  settleMsFor,
  silenceMsFor,
} from "./presence";
import { withReading } from "./read-view";
import type { WatchEvents } from "./watch-client";

type Dialed = { url: string; events: WatchEvents; closed: boolean };

/** Settling after a change is off unless a test turns it on (its own test below). */
function harness(config: Partial<PresenceConfig> = { settleMs: 0 }) {
  let now = 1_000_000;
  const dialed: Dialed[] = [];
  const dial: Dial = (input) => {
    const entry = { url: input.url, events: input.events, closed: false };
    dialed.push(entry);
    return {
      close: () => {
        entry.closed = true;
      },
    };
  };
  const { log, logs } = capturingLogger();
  const metrics = createOperatorMetrics();
  const presence = withReading(
    createPresence({ config, clock: () => now, log, metrics, dial, timer: false }),
    log,
  );
  const wakes: [string, boolean][] = [];
  presence.onWake((key, urgent) => void wakes.push([key, urgent]));
  return {
    presence,
    dialed,
    logs,
    metrics,
    wakes,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

const pod = (name: string, over: Partial<ClusterPod> = {}): ClusterPod => ({
  name,
  namespace: "ns",
  job: "job",
  replicaSpec: "worker",
  index: 0,
  node: "node-0",
  phase: "Running",
  agentUrl: `http://127.0.0.1:9/${name}`,
  createdAt: 1000,
  finishedAt: null,
  ...over,
});

const line = (status: string) => JSON.stringify({ status });
const rankLine = (status: string, restarts: number) =>
  JSON.stringify({ status, ranks: [rankEntry({ localRank: 0, rank: 0, restarts, rules: [] })] });
const counter = async (metrics: ReturnType<typeof createOperatorMetrics>, name: string) =>
  (await metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;

/** One Running pod of job ns/job, its watch answered and its first line pushed. */
function pushingAgent(h: ReturnType<typeof harness>, first: string) {
  const agent = pod("job-worker-0");
  h.presence.sync("ns/job", [agent]);
  const watch = h.dialed[0] as Dialed;
  watch.events.opened();
  watch.events.line(first);
  return { agent, watch };
}

describe("presence", () => {
  it("opens a watch per Running pod with an agent and reads pushed lines as statuses", () => {
    const h = harness();
    const running = pod("job-worker-0");
    h.presence.sync("ns/job", [
      running,
      pod("job-worker-1", { phase: "Pending" }),
      pod("x", { agentUrl: null }),
    ]);
    expect(h.dialed.map((d) => d.url)).toEqual([running.agentUrl]);
    const watch = h.dialed[0] as Dialed;
    expect(h.presence.pushed(running)).toBeNull();
    watch.events.opened();
    expect(h.presence.pushed(running)).toBeNull();
    watch.events.line(line("RUNNING"));
    expect(h.presence.pushed(running)).toEqual({ kind: "status", status: { status: "running" } });
    expect(h.wakes).toEqual([["ns/job", true]]);
    // The same state again is progress: it wakes the job at most once a second, not urgently.
    watch.events.line(JSON.stringify({ status: "running", reason: "Running" }));
    expect(h.wakes).toEqual([["ns/job", true]]);
    h.advance(1000);
    watch.events.line(JSON.stringify({ status: "running", reason: "x" }));
    expect(h.wakes.at(-1)).toEqual(["ns/job", false]);
    watch.events.line(line("faulted"));
    expect(h.wakes.at(-1)).toEqual(["ns/job", true]);
    expect(h.presence.stats()).toMatchObject({ pushing: 1, probing: 0 });
  });

  it("heartbeats keep an agent heard; silence past the threshold is judged once, logged, counted, woken", async () => {
    const h = harness();
    const { agent: running, watch } = pushingAgent(h, line("running"));
    for (let i = 0; i < 8; i += 1) {
      h.advance(250);
      watch.events.heartbeat();
      h.presence.judge(h.now());
    }
    expect(h.presence.pushed(running)?.kind).toBe("status");
    const lastHeardAt = h.now();
    h.advance(700);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)?.kind).toBe("status");
    h.advance(1);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)).toEqual({ kind: "silent", lastHeardAt, detectedAt: h.now() });
    const silent = h.logs.filter((entry) => entry.msg === "agent silent");
    expect(silent).toEqual([
      {
        msg: "agent silent",
        fields: { namespace: "ns", pod: "job-worker-0", lastHeardAt, detectedAt: h.now(), lenient: null },
      },
    ]);
    expect(h.wakes.at(-1)).toEqual(["ns/job", true]);
    h.advance(100);
    h.presence.judge(h.now());
    expect(h.logs.filter((entry) => entry.msg === "agent silent")).toHaveLength(1);
    expect(await counter(h.metrics, "rebound_operator_agent_silences_total")).toBe(1);
    expect(await counter(h.metrics, "rebound_operator_agent_heartbeats_total")).toBe(8);
    // Heard again: no longer silent.
    watch.events.heartbeat();
    expect(h.presence.pushed(running)?.kind).toBe("status");
  });

  it("gives an agent that just started its workers the unreachable timeout, not the silence threshold", () => {
    const h = harness({});
    const { settleMs, unreachableMs, silenceMs } = DEFAULT_PRESENCE_CONFIG;
    const { agent: running, watch } = pushingAgent(h, line("running"));
    const startedAt = h.now();
    h.advance(silenceMs + 100);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)?.kind).toBe("status");
    h.advance(unreachableMs - silenceMs);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)).toEqual({
      kind: "silent",
      lastHeardAt: startedAt,
      detectedAt: h.now(),
    });
    expect(h.logs.find((entry) => entry.msg === "agent silent")?.fields).toMatchObject({
      lenient: "settling",
    });
    // Heard again, then steady past the settling window: the silence threshold applies again.
    h.advance(settleMs);
    watch.events.heartbeat();
    const steadyAt = h.now();
    h.advance(silenceMs + 1);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)).toEqual({
      kind: "silent",
      lastHeardAt: steadyAt,
      detectedAt: h.now(),
    });
  });

  it("says an agent was judged leniently when settling delayed it, also when its settling ended before it was found", () => {
    const h = harness({ settleMs: 1000 });
    const { silenceMs } = DEFAULT_PRESENCE_CONFIG;
    const { agent, watch } = pushingAgent(h, line("running"));
    h.advance(200);
    watch.events.heartbeat();
    // Due at the silence threshold 900 ms after the start, while still settling: not judged then.
    h.advance(silenceMs + 1);
    h.presence.judge(h.now());
    expect(h.presence.pushed(agent)?.kind).toBe("status");
    // Settled at 1,000 ms: found on the next sweep, and the log says settling held it back.
    h.advance(150);
    h.presence.judge(h.now());
    expect(h.presence.pushed(agent)?.kind).toBe("silent");
    expect(h.logs.find((entry) => entry.msg === "agent silent")?.fields).toMatchObject({
      lenient: "settling",
    });
  });

  it("settles after a start or a rank's restart only: an agent stopping or waiting for /start gets the silence threshold", () => {
    const h = harness({});
    const { settleMs, unreachableMs, silenceMs } = DEFAULT_PRESENCE_CONFIG;
    const { agent, watch } = pushingAgent(h, rankLine("running", 0));
    h.advance(settleMs);
    const silentAfter = (ms: number) => {
      h.advance(ms);
      h.presence.judge(h.now());
      return h.presence.pushed(agent)?.kind === "silent";
    };
    // A restart's stop, then waiting for /start: no workers start, so a frozen agent is found in 700 ms.
    for (const state of ["stopping", "ready"]) {
      watch.events.line(rankLine(state, 0));
      expect(silentAfter(silenceMs + 1)).toBe(true);
    }
    // Started again: the unreachable timeout for the settling window.
    watch.events.line(rankLine("running", 0));
    expect(silentAfter(silenceMs + 1)).toBe(false);
    expect(silentAfter(unreachableMs - silenceMs)).toBe(true);
    // Steady, then one rank's process restarts (its restart count goes up): settling again.
    h.advance(settleMs);
    watch.events.line(rankLine("running", 0));
    expect(silentAfter(silenceMs + 1)).toBe(true);
    watch.events.line(rankLine("running", 1));
    expect(silentAfter(silenceMs + 1)).toBe(false);
  });

  it("reads a pushed line once, when asked: upper-case states lower-cased, a line off the schema polled", () => {
    const h = harness();
    const { agent, watch } = pushingAgent(h, line("RUNNING"));
    const read = h.presence.pushed(agent);
    expect(read).toEqual({ kind: "status", status: { status: "running" } });
    expect(h.presence.pushed(agent)).toBe(read);
    // JSON with a state, but a rank that is not a /status rank: the job is woken, the agent polled.
    watch.events.line(JSON.stringify({ status: "faulted", ranks: [{ rank: "zero" }] }));
    expect(h.wakes.at(-1)).toEqual(["ns/job", true]);
    expect(h.presence.pushed(agent)).toBeNull();
    expect(h.presence.pushed(agent)).toBeNull();
    expect(h.logs.filter((entry) => entry.msg === "agent pushed an unreadable status line")).toHaveLength(1);
    // Not JSON at all: ignored, the last line stands.
    watch.events.line("{not json");
    expect(h.logs.filter((entry) => entry.msg === "agent pushed an unreadable status line")).toHaveLength(2);
    expect(h.presence.pushed(agent)).toBeNull();
    watch.events.line(line("running"));
    expect(h.presence.pushed(agent)?.kind).toBe("status");
  });

  it("settles 10 s on the local back end (every pod on this host's cores), not at all on Kubernetes", () => {
    expect(settleMsFor("local")).toBe(10_000);
    expect(settleMsFor("kubernetes")).toBe(0);
  });

  it("judges silence after 2 s on the local back end, 700 ms on Kubernetes, both under the 3 s timeout", () => {
    expect(silenceMsFor("local")).toBe(2000);
    expect(silenceMsFor("kubernetes")).toBe(700);
    for (const kind of ["local", "kubernetes"] as const)
      expect(silenceMsFor(kind)).toBeLessThan(DEFAULT_PRESENCE_CONFIG.unreachableMs);
  });

  it("does not judge on a tick that ran late, and judges after pending I/O on one that did not", async () => {
    const h = harness();
    const { agent: running, watch } = pushingAgent(h, line("running"));
    h.advance(900);
    // The operator stalled: the tick fires 200 ms late (more than a quarter of the 700 ms threshold).
    h.presence.onTimer(h.now(), h.now() - 200);
    await new Promise((resolve) => setImmediate(resolve));
    // Not judged: its last status stands meanwhile.
    expect(h.presence.pushed(running)?.kind).toBe("status");
    expect(h.presence.stats()).toMatchObject({ lateTicks: 1, silent: 0 });
    // On time: judged after the I/O already waiting is read (a heartbeat that was sitting in the socket).
    h.presence.onTimer(h.now(), h.now() - 10);
    watch.events.heartbeat();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.presence.pushed(running)?.kind).toBe("status");
    h.advance(701);
    h.presence.onTimer(h.now(), h.now());
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.presence.pushed(running)?.kind).toBe("silent");
  });

  it("does not judge when the I/O between the tick and the judgement ran long (unread sockets)", async () => {
    const h = harness();
    pushingAgent(h, line("running"));
    h.advance(800);
    h.presence.onTimer(h.now(), h.now());
    // The poll phase after the tick takes 300 ms (a long callback) before the judgement runs.
    h.advance(300);
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.presence.stats()).toMatchObject({ lateTicks: 1, silent: 0 });
  });

  it("judges one silent agent among many, but not many overdue at once (a shared cause is suspected)", () => {
    const h = harness();
    const pods = Array.from({ length: 12 }, (_, index) => pod(`job-worker-${index}`));
    h.presence.sync("ns/job", pods);
    for (const watch of h.dialed) {
      watch.events.opened();
      watch.events.line(line("running"));
    }
    h.advance(701);
    for (const watch of h.dialed.slice(1)) watch.events.heartbeat();
    h.presence.judge(h.now());
    expect(h.presence.pushed(pods[0] as ClusterPod)?.kind).toBe("silent");
    expect(h.presence.stats()).toMatchObject({ silent: 1, correlated: 0 });
    // Six more unheard at once: nobody judged before the unreachable timeout (3 s), as polling would.
    h.advance(701);
    for (const watch of h.dialed.slice(7)) watch.events.heartbeat();
    h.presence.judge(h.now());
    expect(h.presence.stats()).toMatchObject({ silent: 1, correlated: 1 });
    expect(h.presence.pushed(pods[1] as ClusterPod)?.kind).toBe("status");
    expect(h.logs.filter((entry) => entry.msg === "agent silent")).toHaveLength(1);
    const heartbeatsOfTheLastFive = () => {
      for (const watch of h.dialed.slice(7)) watch.events.heartbeat();
    };
    for (let waited = 701; waited <= 3000; waited += 250) {
      h.advance(250);
      heartbeatsOfTheLastFive();
      h.presence.judge(h.now());
    }
    expect(h.presence.stats()).toMatchObject({ silent: 7 });
    expect(h.presence.pushed(pods[8] as ClusterPod)?.kind).toBe("status");
  });

  it("gives agents overdue with many others the silence threshold from the stall's end, until heard again", () => {
    const h = harness();
    const pods = Array.from({ length: 12 }, (_, index) => pod(`job-worker-${index}`));
    h.presence.sync("ns/job", pods);
    for (const watch of h.dialed) {
      watch.events.opened();
      watch.events.line(line("running"));
    }
    const others = () => {
      for (const watch of h.dialed.slice(2)) watch.events.heartbeat();
    };
    /** To `at` ms after the start: the others heard, then a judgement. */
    const judgeAt = (at: number) => {
      h.advance(at - (h.now() - 1_000_000));
      others();
      h.presence.judge(h.now());
    };
    // A shared stall: ten unheard for 600 ms (overdue, not yet past the threshold).
    h.advance(600);
    for (const watch of h.dialed.slice(10)) watch.events.heartbeat();
    h.presence.judge(h.now());
    expect(h.presence.stats()).toMatchObject({ correlated: 0 });
    // The stall clears at 800 ms: eight are heard again; the last two lines come late.
    judgeAt(800);
    expect(h.presence.stats()).toMatchObject({ silent: 0 });
    // job-worker-1 is a straggler, heard 500 ms after the stall cleared: not silent.
    judgeAt(1300);
    (h.dialed[1] as Dialed).events.heartbeat();
    expect(h.presence.stats()).toMatchObject({ silent: 0 });
    // job-worker-0 is never heard: silent 700 ms after the stall cleared, not at the 3 s timeout.
    judgeAt(1500);
    expect(h.presence.pushed(pods[0] as ClusterPod)?.kind).toBe("status");
    judgeAt(1501);
    expect(h.presence.pushed(pods[0] as ClusterPod)).toMatchObject({ kind: "silent", detectedAt: h.now() });
    expect(h.presence.pushed(pods[1] as ClusterPod)?.kind).toBe("status");
    const last = h.logs.filter((entry) => entry.msg === "agent silent").at(-1);
    expect(last?.fields).toMatchObject({ pod: "job-worker-0", lenient: "overdue with many" });
    // Heard again, job-worker-1 is steady: 700 ms from its own last line.
    judgeAt(2001);
    expect(h.presence.pushed(pods[1] as ClusterPod)?.kind).toBe("silent");
  });

  it("an agent that answers the watch with 404 does not push: it is polled, never judged silent", () => {
    const h = harness();
    const running = pod("job-worker-0");
    h.presence.sync("ns/job", [running]);
    (h.dialed[0] as Dialed).events.refused(404);
    h.advance(10_000);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)).toBeNull();
    expect(h.presence.stats()).toMatchObject({ polled: 1, pushing: 0, silent: 0 });
    expect(h.dialed).toHaveLength(1);
  });

  it("a replacement pod is a new agent; a pod that goes is no longer watched", () => {
    const h = harness();
    h.presence.sync("ns/job", [pod("job-worker-0")]);
    const first = h.dialed[0] as Dialed;
    first.events.opened();
    first.events.line(line("running"));
    const replacement = pod("job-worker-0", { createdAt: 2000, agentUrl: "http://127.0.0.1:10" });
    h.presence.sync("ns/job", [replacement]);
    expect(first.closed).toBe(true);
    expect(h.dialed).toHaveLength(2);
    expect(h.presence.pushed(replacement)).toBeNull();
    expect(h.presence.pushed(pod("job-worker-0"))).toBeNull();
    h.presence.sync("ns/job", [{ ...replacement, phase: "Failed" }]);
    expect((h.dialed[1] as Dialed).closed).toBe(true);
    expect(h.presence.stats()).toMatchObject({ pushing: 0, probing: 0 });
  });

  it("reconnects a dropped stream, polling the agent meanwhile (an ended stream is no silence)", async () => {
    const h = harness();
    const { agent: running, watch } = pushingAgent(h, line("running"));
    h.advance(500);
    watch.events.closed("stream ended");
    expect(h.presence.pushed(running)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(h.dialed).toHaveLength(2);
    (h.dialed[1] as Dialed).events.closed("connect ECONNREFUSED");
    h.advance(5000);
    h.presence.judge(h.now());
    expect(h.presence.pushed(running)).toBeNull();
    expect(h.presence.stats()).toMatchObject({ probing: 1, silent: 0 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const latest = h.dialed.at(-1) as Dialed;
    latest.events.opened();
    latest.events.line(line("running"));
    expect(h.presence.pushed(running)?.kind).toBe("status");
    h.presence.stop();
  });
});
