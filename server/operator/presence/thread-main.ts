import { parentPort, workerData } from "node:worker_threads";
import type { Logger } from "@/server/log";
import { createPresence, type PresenceConfig } from "./presence";
import type { FromThread, ToThread } from "./thread";

/**
 * The presence thread's entry (bundled and started by thread.ts): the watch streams, their heartbeats and
 * the silence sweep run here, on an event loop no reconcile can hold up. What the operator needs goes back
 * as messages: each agent's view as it changes, job wake-ups, log records and counter tallies.
 */

const port = parentPort;
if (!port) throw new Error("thread-main.ts runs as a worker thread (server/operator/presence/thread.ts)");
const post = (message: FromThread) => port.postMessage(message);

const forwardingLog = (bindings: Record<string, unknown>): Logger => ({
  info: (msg, fields) => post({ type: "log", level: "info", msg, fields: { ...bindings, ...fields } }),
  warn: (msg, fields) => post({ type: "log", level: "warn", msg, fields: { ...bindings, ...fields } }),
  error: (msg, fields) => post({ type: "log", level: "error", msg, fields: { ...bindings, ...fields } }),
  child: (more) => forwardingLog({ ...bindings, ...more }),
});

const tally = { lines: 0, heartbeats: 0, silences: 0 };
const counter = (name: keyof typeof tally) => ({
  inc: (value = 1) => {
    tally[name] += value;
  },
});

const presence = createPresence({
  config: workerData as PresenceConfig,
  log: forwardingLog({}),
  metrics: {
    agentPushLines: counter("lines"),
    agentHeartbeats: counter("heartbeats"),
    agentSilences: counter("silences"),
  },
  onView: (change) => post({ type: "view", change }),
});
presence.onWake((jobKey, urgent) => post({ type: "wake", jobKey, urgent }));

/** Counters and the sweep's skip counts go back four times a second. */
const flush = setInterval(() => {
  const { lateTicks, correlated } = presence.stats();
  post({ type: "counts", ...tally, lateTicks, correlated });
  tally.lines = 0;
  tally.heartbeats = 0;
  tally.silences = 0;
}, 250);

port.on("message", (message: ToThread) => {
  switch (message.type) {
    case "sync":
      return presence.sync(message.jobKey, message.pods);
    case "forget":
      return presence.forgetJob(message.jobKey);
    case "stop":
      clearInterval(flush);
      presence.stop();
      return port.close();
  }
});
