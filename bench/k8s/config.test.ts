import { describe, expect, it } from "vitest";
import { agentProcessesFor, parseConfig } from "./config";

describe("bench:k8s's stand-in agents' processes", () => {
  it("are one per 512 pods by default, at most 4", () => {
    expect([1, 256, 512, 513, 1024, 1536, 2048, 4096].map(agentProcessesFor)).toEqual([
      1, 1, 1, 2, 2, 3, 4, 4,
    ]);
    expect(parseConfig([]).agentProcesses).toBe(1);
    expect(parseConfig(["--nodes", "2048"]).agentProcesses).toBe(4);
  });

  it("can be set, to a positive integer", () => {
    expect(parseConfig(["--nodes", "256", "--agent-processes", "4"]).agentProcesses).toBe(4);
    expect(() => parseConfig(["--agent-processes", "0"])).toThrow(/--agent-processes/);
    expect(() => parseConfig(["--agent-processes", "two"])).toThrow(/--agent-processes/);
  });
});
