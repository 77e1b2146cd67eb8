import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_BUNDLE_PATH, localAgentScript } from "./agent-bundle";

const ROOT = path.resolve(import.meta.dirname, "../../..");

describe("the agent local pods run", () => {
  it("is the bundle, built once per process, and it runs the real agent (its flag errors included)", async () => {
    const [first, second] = await Promise.all([localAgentScript(ROOT), localAgentScript(ROOT)]);
    expect(first).toBe(path.join(ROOT, AGENT_BUNDLE_PATH));
    expect(second).toBe(first);
    expect(statSync(first).mode & 0o444).toBe(0o444);
    const refused = spawnSync(process.execPath, [first, "--nproc-per-node=zero", "train.py"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 20_000,
    });
    // The same refusal as through bin/rebound-agent.mjs (agent-protocol.integration-test.ts): the flag named.
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("--nproc-per-node");
  });
});
