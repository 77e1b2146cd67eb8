import { describe, expect, it } from "vitest";
import { parseConfig } from "./config";

describe("bench:k8s's stand-in agents' processes", () => {
  it("are one by default, whatever the job's size", () => {
    expect(parseConfig([]).agentProcesses).toBe(1);
    expect(parseConfig(["--nodes", "2048"]).agentProcesses).toBe(1);
  });

  it("can be set, to a positive integer", () => {
    expect(parseConfig(["--nodes", "256", "--agent-processes", "4"]).agentProcesses).toBe(4);
    expect(() => parseConfig(["--agent-processes", "0"])).toThrow(/--agent-processes/);
    expect(() => parseConfig(["--agent-processes", "two"])).toThrow(/--agent-processes/);
  });
});

describe("bench:k8s's node signal", () => {
  it("is HyperPod's label with the full report by default; a source by name, else an error naming the flag", () => {
    expect(parseConfig([]).nodeSignals).toEqual([]);
    expect(parseConfig(["--node-signal", "dcgm,npd", "--scrape-ms", "500"])).toMatchObject({
      nodeSignals: ["dcgm", "npd"],
      scrapeMs: 500,
    });
    expect(parseConfig(["--node-signal", "all"]).nodeSignals).toHaveLength(6);
    expect(() => parseConfig(["--node-signal", "device-plugin"])).toThrow(
      /--node-signal: expected all or some/,
    );
    expect(() => parseConfig(["--scrape-ms", "10"])).toThrow(/--scrape-ms/);
  });
});
