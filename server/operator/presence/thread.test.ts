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
