import { EventEmitter } from "node:events";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import type { Logger } from "@/server/log";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { DEFAULT_PRESENCE_CONFIG, type WatchedPod } from "./presence";
import { createPresenceThread } from "./thread";

const pod: WatchedPod = {
  namespace: "ns",
  name: "job-worker-0",
  phase: "Running",
  agentUrl: "http://127.0.0.1:9",
  createdAt: 1000,
};

describe("presence thread, when it cannot run", () => {
  it("says so once and leaves every agent to polling", async () => {
    const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
    const log: Logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (msg, fields) => void errors.push({ msg, fields }),
      child: () => log,
    };
    const presence = createPresenceThread({
      config: DEFAULT_PRESENCE_CONFIG,
      log,
      metrics: createOperatorMetrics(),
      start: () => Promise.reject(new Error("esbuild is missing")),
    });
    presence.sync("ns/job", [pod]);
    await new Promise((resolve) => setImmediate(resolve));
    presence.sync("ns/job", [pod]);
    expect(presence.pushed(pod)).toBeNull();
    expect(presence.stats()).toMatchObject({ pushing: 0, polled: 0, probing: 0 });
    expect(errors).toEqual([
      {
        msg: "presence thread ended: every agent is polled from now on",
        fields: { why: "could not start: Error: esbuild is missing" },
      },
    ]);
    presence.stop();
  });
});

describe("presence thread, what crosses to it", () => {
  it("sends a job's pods only when what presence reads of them changed", async () => {
    const sent: unknown[] = [];
    const port = new EventEmitter() as EventEmitter & {
      postMessage(message: unknown): void;
      terminate(): void;
    };
    port.postMessage = (message) => void sent.push(message);
    port.terminate = () => undefined;
    const log: Logger = {
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      child: () => log,
    };
    const presence = createPresenceThread({
      config: DEFAULT_PRESENCE_CONFIG,
      log,
      metrics: createOperatorMetrics(),
      start: async () => port as unknown as Worker,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const other: WatchedPod = { ...pod, name: "job-worker-1", agentUrl: "http://127.0.0.1:10" };
    const pending: WatchedPod = { ...pod, name: "job-worker-2", phase: "Pending", agentUrl: null };
    const pods = [pod, other, pending];
    presence.sync("ns/job", pods);
    presence.sync("ns/job", pods);
    presence.sync("ns/job", [pod, other, pending]);
    // The same pods as new objects (the next version of each): nothing presence reads changed.
    presence.sync("ns/job", [{ ...pod }, { ...other }, { ...pending, createdAt: 2000 }]);
    expect(sent).toEqual([{ type: "sync", jobKey: "ns/job", pods: [pod, other] }]);
    // A replacement pod (a new creation time) is a new agent: sent.
    const replaced = { ...other, createdAt: 3000 };
    presence.sync("ns/job", [pod, replaced]);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ type: "sync", jobKey: "ns/job", pods: [pod, replaced] });
    // A view the thread reports is read from the mirror, by pod identity.
    port.emit("message", {
      type: "view",
      change: {
        key: "ns/job-worker-0",
        jobKey: "ns/job",
        identity: "1000 http://127.0.0.1:9",
        mode: "pushing",
        view: { kind: "status", text: '{"status":"running"}' },
      },
    });
    expect(presence.pushed(pod)).toEqual({ kind: "status", status: { status: "running" } });
    expect(presence.pushed({ ...pod, createdAt: 999 })).toBeNull();
    expect(presence.stats()).toMatchObject({ pushing: 1 });
    presence.stop();
  });
});
