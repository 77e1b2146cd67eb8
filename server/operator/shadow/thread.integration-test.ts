import { existsSync, readdirSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { buildOperator, OPERATOR_DIST } from "@/scripts/lib/operator-build";
import { capturingLogger } from "@/test/capturing-log";
import type { FromShadowEngine } from "./engine";
import { createShadowThread, type ShadowEvaluator, startShadowWorker } from "./thread";

/**
 * The shadow thread as the operator starts it (thread.ts): bundled from its source at start (the operator
 * under tsx, as in tests), and the operator bundle's shadow-thread.mjs (scripts/lib/operator-build.ts: what
 * deploy/ and `npm start` run). Each judges a pod's lines sent to it and answers what it found; on Linux it
 * runs at the lowest CPU priority (nice 19), the operator's own thread at its own.
 */

const { log } = capturingLogger();
let thread: ShadowEvaluator | undefined;
let worker: Worker | undefined;

afterEach(() => {
  thread?.stop();
  thread = undefined;
  worker = undefined;
});

const NO_PREBUILT = new URL("file:///nonexistent/shadow-thread.mjs");
const starts = [
  ["bundled from its source at start", () => startShadowWorker(NO_PREBUILT)],
  [
    "the operator bundle's thread",
    async () => {
      await buildOperator();
      const built = pathToFileURL(`${OPERATOR_DIST}/shadow-thread.mjs`);
      // Else startShadowWorker would quietly bundle the source instead.
      if (!existsSync(built)) throw new Error(`${built} was not built`);
      return startShadowWorker(built);
    },
  ],
] as const;

/** Each thread of this process with its nice value (/proc/<pid>/task/<tid>/stat, field 19). */
function niceByThread(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
    nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
  }
  return nice;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(starts)("the shadow thread, %s", (_name, start) => {
  it("judges the lines sent to it and answers what it found, at the lowest priority", async () => {
    const before = new Set(niceByThread().keys());
    thread = createShadowThread({
      log,
      start: async () => {
        worker = await start();
        return worker;
      },
    });
    const out: FromShadowEngine[] = [];
    thread.onMessage((message) => out.push(message));
    const identity = "uid|attempt-1|rules";
    thread.send({
      type: "watch",
      key: "ns/job",
      identity,
      rules: [{ name: "Loss", logPattern: ".*loss=(nan|inf).*", faultOnMatch: true }],
      allRanks: false,
      ranksPerNode: 2,
      pods: [{ name: "job-worker-1", groupRank: 1, node: "node-1" }],
    });
    // The thread starts on the first message, and is sent the watches it missed.
    await until("the thread started", () => worker);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const read = (lines: string[]) =>
      thread?.send({ type: "read", key: "ns/job", identity, pod: "job-worker-1", text: lines.join("\n") });
    // The first read marks where the attempt's output is; the next one's new lines are judged.
    read(["[default0]:step=1 loss=2.0"]);
    read(["[default0]:step=1 loss=2.0", "[default1]:step=2 loss=nan", "[default0]:step=2 loss=nan"]);
    const fault = await until("the fault", () => out.find((message) => message.type === "fault"));
    expect(fault).toMatchObject({
      key: "ns/job",
      identity,
      fault: { pod: "job-worker-1", node: "node-1", rank: 2, state: "FAULTED", rules: [{ rule: "Loss" }] },
    });
    const added = [...niceByThread()].filter(([tid]) => !before.has(tid));
    // One of the threads the worker brought is its JavaScript thread, at nice 19; this thread keeps 0.
    expect(added.some(([, nice]) => nice === 19)).toBe(true);
    expect(niceByThread().get(process.pid)).toBe(0);
  }, 60_000);
});
