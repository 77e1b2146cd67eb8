import { afterEach, describe, expect, it } from "vitest";
import type { ClusterEvent, ClusterJob } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { SHADOW_ANNOTATION } from "./marks";
import { createInThreadEvaluator } from "./thread";
import type { NewShadowVerdict } from "./verdict-store";
import { createShadowWatcher, type ShadowObservation, type ShadowWatcher } from "./watcher";

/** The watcher over a pod output written by the test, on a clock the test moves. */
const rules = [{ name: "hang", logPattern: ".*step=(\\d+).*", expectedRecurringFrequencyInSeconds: 5 }];

function clusterJob(annotations: Record<string, string>): ClusterJob {
  const parsed = parseJobYaml(demoJobYaml({ name: "shadowed", nodes: 2, ranks: 2, annotations }));
  if (!parsed.ok) throw new Error("demo job does not parse");
  return {
    ref: { namespace: "hyperpod-ns-llm-research", name: "shadowed" },
    uid: "uid-1",
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

let watcher: ShadowWatcher | null = null;
afterEach(() => watcher?.stop());

function setUp(annotations: Record<string, string> = { [SHADOW_ANNOTATION]: JSON.stringify(rules) }) {
  let now = 1_000_000;
  const output: string[] = ["[default0]:step=0 (an earlier attempt)"];
  const events: ClusterEvent[] = [];
  const verdicts: NewShadowVerdict[] = [];
  watcher = createShadowWatcher({
    backend: {
      podLogs: async (_ref, pod) => (pod === "shadowed-workers-1" ? output.join("\n") : ""),
      recordEvent: async (_ref, event) => {
        events.push({ ...event, at: now });
      },
    },
    verdicts: { save: async (verdict) => void verdicts.push(verdict) },
    log: createLogger({ test: "shadow-watcher" }),
    clock: () => now,
    tickMs: 3_600_000,
    // The shadow thread's engine, on this thread and the test's clock.
    evaluator: createInThreadEvaluator({ clock: () => now }),
  });
  const observation = (attempt: string, running = true): ShadowObservation => ({
    job: clusterJob(annotations),
    running,
    attempt,
    pods: [{ name: "shadowed-workers-1", groupRank: 1, node: "node-1" }],
    ranksPerNode: 2,
    status: {},
    history: [],
    cluster: { healthyNodes: ["node-0", "node-1"], spareNodes: [], freeNodes: [] },
  });
  return {
    watcher,
    output,
    events,
    verdicts,
    observation,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("the shadow watcher", () => {
  it("records what a hang would have caused, once, judging only the watched rank's new lines", async () => {
    const t = setUp();
    t.watcher.observe(t.observation("attempt-1"));
    await t.watcher.tick();
    t.output.push("[default0]:step=1", "[default1]:step=1");
    await t.watcher.tick();
    // Local rank 1 keeps printing, but only local rank 0 is watched (as hyperpodrun).
    for (let second = 0; second < 8; second += 1) {
      t.advance(1000);
      t.output.push(`[default1]:step=${second + 2}`);
      await t.watcher.tick();
    }
    expect(t.verdicts).toHaveLength(1);
    expect(t.verdicts[0]).toMatchObject({
      jobUid: "uid-1",
      pod: "shadowed-workers-1",
      rank: 2,
      rule: "hang",
      state: "HANGING",
      reason: "LogHang_hang",
      wouldAction: "restarted rank 2 in place",
      policy: null,
    });
    expect(t.events.map((event) => [event.type, event.reason])).toEqual([["Normal", "ShadowWouldRestart"]]);
    expect(t.events[0]?.message).toMatch(/^would have restarted rank 2 in place: rule hang HANGING at /);
  });

  it("never reads the earlier attempt's lines, and starts afresh at the next attempt", async () => {
    const t = setUp();
    t.watcher.observe(t.observation("attempt-1"));
    await t.watcher.tick();
    t.output.push("[default0]:step=1");
    await t.watcher.tick();
    t.advance(6000);
    await t.watcher.tick();
    expect(t.verdicts).toHaveLength(1);
    t.watcher.observe(t.observation("attempt-2"));
    await t.watcher.tick();
    t.advance(6000);
    // No line yet in this attempt: WAITING, not HANGING.
    await t.watcher.tick();
    expect(t.verdicts).toHaveLength(1);
    t.output.push("[default0]:step=1");
    await t.watcher.tick();
    t.advance(6000);
    await t.watcher.tick();
    expect(t.verdicts).toHaveLength(2);
  });

  it("lets go of a job that stops running or loses its shadow", async () => {
    const t = setUp();
    t.watcher.observe(t.observation("attempt-1"));
    await t.watcher.tick();
    t.output.push("[default0]:step=1");
    await t.watcher.tick();
    t.watcher.observe(t.observation("attempt-1", false));
    t.advance(6000);
    await t.watcher.tick();
    expect(t.verdicts).toEqual([]);
  });

  it("says once when the pods' output carries no rank lines to judge", async () => {
    const t = setUp();
    t.output.length = 0;
    t.watcher.observe(t.observation("attempt-1"));
    for (let n = 0; n < 3; n += 1) {
      t.output.push("agent: waiting");
      t.advance(30_000);
      await t.watcher.tick();
    }
    expect(t.events.map((event) => [event.type, event.reason])).toEqual([["Warning", "ShadowNoRankOutput"]]);
  });
});
