import { EventEmitter } from "node:events";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { capturingLogger } from "@/test/capturing-log";
import { createPresence, DEFAULT_PRESENCE_CONFIG, type Dial, type WatchedPod } from "./presence";
import { createPresenceThread } from "./thread";

/**
 * The push stream carries the pod's agent credential as every other call does (server/agent/server.ts
 * answers a watch without it 401): the main thread adds each pod's credential to what crosses to the
 * presence thread, and the thread dials each watch with it.
 */
const pod: WatchedPod = {
  namespace: "ns",
  name: "job-worker-0",
  phase: "Running",
  agentUrl: "http://127.0.0.1:9",
  createdAt: 1000,
};
const other: WatchedPod = { ...pod, name: "job-worker-1", agentUrl: "http://127.0.0.1:10" };
const credentials: Record<string, string> = {
  "http://127.0.0.1:9": "cred-0",
  "http://127.0.0.1:10": "cred-1",
};

describe("presence and the agents' credentials", () => {
  it("sends each pod's credential to the presence thread with its pod", async () => {
    const sent: unknown[] = [];
    const port = new EventEmitter() as EventEmitter & { postMessage(m: unknown): void; terminate(): void };
    port.postMessage = (message) => void sent.push(message);
    port.terminate = () => undefined;
    const { log } = capturingLogger();
    const presence = createPresenceThread({
      config: DEFAULT_PRESENCE_CONFIG,
      log,
      metrics: createOperatorMetrics(),
      start: async () => port as unknown as Worker,
      credentialFor: (url) => credentials[url] ?? null,
    });
    await new Promise((resolve) => setImmediate(resolve));
    presence.sync("ns/job", [pod, other]);
    expect(sent).toEqual([
      {
        type: "sync",
        jobKey: "ns/job",
        pods: [
          { ...pod, credential: "cred-0" },
          { ...other, credential: "cred-1" },
        ],
      },
    ]);
    presence.stop();
  });

  it("dials each agent's watch with its pod's credential", () => {
    const dialed: { url: string; credential: string | null | undefined }[] = [];
    const dial: Dial = (input) => {
      dialed.push({ url: input.url, credential: input.credential });
      return { close: () => undefined };
    };
    const { log } = capturingLogger();
    const presence = createPresence({
      config: DEFAULT_PRESENCE_CONFIG,
      clock: () => 1_000_000,
      log,
      metrics: createOperatorMetrics(),
      dial,
      timer: false,
    });
    presence.sync("ns/job", [
      { ...pod, credential: "cred-0" },
      { ...other, credential: null },
    ]);
    expect(dialed).toEqual([
      { url: "http://127.0.0.1:9", credential: "cred-0" },
      { url: "http://127.0.0.1:10", credential: null },
    ]);
    presence.stop();
  });
});
