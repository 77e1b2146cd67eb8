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
