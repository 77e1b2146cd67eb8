import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { withCordonAction } from "@/server/domain/node-health/table";
import { capturingLogger } from "@/test/capturing-log";
import { startNodeSignalFeed } from "./node-signals";

/** The feed's own rules (Postgres and the ConfigMap are exercised for real in node-signals-config.k8s-test.ts). */
const CORDON_ON = withCordonAction(DEFAULT_NODE_SIGNALS, true);

describe("the operator's node-signal feed", () => {
  it("judges by the shipped table while Postgres is down, then tells listeners of the stored one", async () => {
    const { log, logs } = capturingLogger();
    let up = false;
    const feed = await startNodeSignalFeed({
      load: async () => {
        if (!up) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        return { version: 2, table: CORDON_ON };
      },
      log,
      intervalMs: 60_000,
    });
    expect(feed.current()).toEqual(DEFAULT_NODE_SIGNALS);
    expect(logs.map((record) => record.msg)).toEqual([
      "node-signal table: could not read it from Postgres; keeping the last one read",
    ]);
    const seen: NodeSignalTable[] = [];
    feed.onChange((table) => seen.push(table));
    up = true;
    await feed.refresh();
    expect(feed.current()).toEqual(CORDON_ON);
    expect(seen).toEqual([CORDON_ON]);
    await feed.refresh();
    expect(seen).toHaveLength(1);
    feed.stop();
  });

  it("logs a bad ConfigMap once and keeps its last good rows over a changed stored table", async () => {
    const { log, logs } = capturingLogger();
    let stored = DEFAULT_NODE_SIGNALS;
    const cordonRow = { ...CORDON_ON.find((rule) => rule.id === "kubernetes-cordon") };
    let text = stringify([cordonRow]);
    const feed = await startNodeSignalFeed({
      load: async () => ({ version: 1, table: stored }),
      readConfigMap: async () => ({
        kind: "text",
        key: "ConfigMap ns/cm signals.yaml",
        text,
        resourceVersion: "1",
      }),
      log,
      intervalMs: 60_000,
    });
    expect(feed.current()).toEqual(CORDON_ON);
    text = "- id: kubernetes-cordon\n  action: [";
    await feed.refresh();
    await feed.refresh();
    const errors = logs.filter((record) => record.msg.startsWith("node-signal ConfigMap is not valid"));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(/ConfigMap ns\/cm signals\.yaml: rules: not valid YAML at line \d/);
    // The console removes a row meanwhile: the ConfigMap's last good cordon row still applies over it.
    stored = DEFAULT_NODE_SIGNALS.filter((rule) => rule.id !== "npd-xfs-shutdown");
    await feed.refresh();
    expect(feed.current().some((rule) => rule.id === "npd-xfs-shutdown")).toBe(false);
    expect(feed.current().find((rule) => rule.id === "kubernetes-cordon")?.action).toBe("replace-now");
    feed.stop();
  });
});
