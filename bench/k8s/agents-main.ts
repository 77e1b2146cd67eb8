import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { loadKubeConfig } from "@/server/cluster/kubernetes/config";
import { startStandInAgents } from "@/server/cluster/kubernetes/testing/stand-in-agents";
import { checkPartition } from "@/server/cluster/kubernetes/testing/stand-in-partition";
import { createLogger } from "@/server/log";
import { checkStandInProtocol } from "./stand-in-check";

/**
 * A stand-in agents' process (bench/k8s/agents.ts starts one or several): their CPU is the cost of
 * answering the operator, kept apart from the bench's timing and from the operator. Arguments:
 * `<kubeconfig> <step-ms, 0 for none> <index>/<count>`: this process serves the pods of part `index` of
 * `count` (stand-in-partition.ts). Talks over IPC:
 * `{ type: "fault", namespace, pod }`, `{ type: "freeze", namespace, pod }` (the pod's agent goes silent as
 * a SIGSTOPped one would: streams open, nothing sent, requests unanswered; the reply says when, this
 * machine's clock) and `{ type: "count" }` are answered with `{ type: "reply", … }`.
 * Exits when the channel closes (the bench ended or died).
 */
type Request =
  | { type: "fault"; namespace: string; pod: string }
  | { type: "freeze"; namespace: string; pod: string }
  | { type: "count" };

function answer(message: Request) {
  switch (message.type) {
    case "fault":
      return { ok: agents.fault({ namespace: message.namespace, pod: message.pod }) };
    case "freeze":
      return { ok: agents.freeze({ namespace: message.namespace, pod: message.pod }), at: Date.now() };
    case "count":
      return { count: agents.count(), started: agents.started() };
    default:
      return message satisfies never;
  }
}

const [kubeconfig, step, part] = process.argv.slice(2);
const [index, count] = (part ?? "").split("/").map(Number);
if (!kubeconfig || index === undefined || count === undefined)
  throw new Error("usage: agents-main.ts <kubeconfig> <step-ms> <index>/<count>");
const partition = checkPartition({ index, count });
const stepMs = Number(step) > 0 ? Number(step) : undefined;
const log = createLogger({ service: "stand-in-agents", part: `${index}/${count}` });
await checkStandInProtocol();
const agents = await startStandInAgents({ kubeConfig: loadKubeConfig(kubeconfig), log, stepMs, partition });

/**
 * The longest the process's event loop was held each second, logged when over STALL_NOTE_MS: while it is
 * held no stand-in writes a heartbeat, which the operator sees as many agents overdue at once. With it,
 * the garbage collector's share: its longest pause and its total in that second, and how long the loop's
 * thread waited for a CPU (ready to run, not running: the kernel's run delay, /proc/self/schedstat).
 */
const STALL_NOTE_MS = 150;
/** Nanoseconds the main thread has spent ready to run but waiting for a CPU (0 where schedstat is absent). */
const runDelayNs = () => {
  try {
    return Number(readFileSync("/proc/self/schedstat", "utf8").split(" ")[1] ?? 0);
  } catch {
    return 0;
  }
};
let waitedNs = runDelayNs();
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const gc = { maxMs: 0, totalMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
    gc.totalMs += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });
setInterval(() => {
  const maxMs = loopDelay.max / 1e6;
  loopDelay.reset();
  const waited = runDelayNs();
  if (maxMs > STALL_NOTE_MS)
    log.warn("stand-in loop held", {
      maxMs: Math.round(maxMs),
      gcMaxMs: Math.round(gc.maxMs),
      gcTotalMs: Math.round(gc.totalMs),
      cpuWaitMs: Math.round((waited - waitedNs) / 1e6),
      agents: agents.count(),
    });
  waitedNs = waited;
  gc.maxMs = 0;
  gc.totalMs = 0;
}, 1000).unref();

process.on("message", (message: Request) => {
  process.send?.({ type: "reply", ...answer(message) });
});
process.on("disconnect", () => {
  void agents.stop().finally(() => process.exit(0));
});
process.send?.({ type: "ready" });
