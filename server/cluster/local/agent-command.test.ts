import { describe, expect, it } from "vitest";
import { localAgentCommand } from "./agent-command";

const base = { agentBin: "/repo/bin/rebound-agent.mjs", port: 41000, logDir: "/data/pods/p0" };

describe("localAgentCommand", () => {
  it("runs npx rebound-agent as this node with our port, host and log dir, keeping the other flags", () => {
    const result = localAgentCommand({
      ...base,
      argv: [
        "npx",
        "rebound-agent",
        "--nproc-per-node",
        "4",
        "--server-port",
        "8080",
        "--log-dir=/tmp/x",
        "train.ts",
        "--steps",
        "10",
      ],
    });
    expect(result).toEqual({
      ok: true,
      command: {
        command: process.execPath,
        args: [
          "/repo/bin/rebound-agent.mjs",
          "--server-host",
          "127.0.0.1",
          "--server-port",
          "41000",
          "--log-dir",
          "/data/pods/p0",
          "--worker-nice",
          "19",
          "--nproc-per-node",
          "4",
          "train.ts",
          "--steps",
          "10",
        ],
      },
    });
  });

  it("accepts hyperpodrun (our agent stands in for it)", () => {
    const result = localAgentCommand({ ...base, argv: ["hyperpodrun", "--nnodes=2", "train.py"] });
    expect(result.ok && result.command.args.slice(-2)).toEqual(["--nnodes=2", "train.py"]);
  });

  it("refuses a container that does not start the agent, saying what it got", () => {
    const result = localAgentCommand({ ...base, argv: ["python3", "train.py"] });
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining("got: python3 train.py"),
    });
  });
});
