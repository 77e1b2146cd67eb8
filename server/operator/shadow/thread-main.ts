import { readlinkSync } from "node:fs";
import { constants, setPriority } from "node:os";
import path from "node:path";
import { parentPort } from "node:worker_threads";
import { createShadowEngine, type FromShadowEngine, type ToShadowEngine } from "./engine";

/**
 * The shadow thread's entry (started by thread.ts; bundled beside the operator as shadow-thread.mjs by
 * scripts/lib/operator-build.ts): shadow rules run here (engine.ts), on an event loop of their own, so no
 * job's shadow rules hold the operator's reconciles or its /healthz.
 */

const port = parentPort;
if (!port) throw new Error("thread-main.ts runs as a worker thread (server/operator/shadow/thread.ts)");

/**
 * Shadow rules only advise: on Linux the thread takes the lowest CPU priority (nice 19), so where cores are
 * short the operator's own thread, its agents and the ranks they restart go first. Linux gives each thread
 * its own nice value, set through its thread id (/proc/thread-self; Node has no gettid). Elsewhere it keeps
 * the operator's.
 */
function lowerPriority(): void {
  try {
    const tid = Number(path.basename(readlinkSync("/proc/thread-self")));
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or /proc not mounted: the thread runs at the operator's priority.
  }
}

lowerPriority();
const engine = createShadowEngine({ emit: (message: FromShadowEngine) => port.postMessage(message) });

port.on("message", (message: ToShadowEngine) => {
  engine.receive(message);
  if (message.type === "stop") port.close();
});
