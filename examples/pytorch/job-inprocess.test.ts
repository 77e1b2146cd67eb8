import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAgentArgs } from "@/server/agent/cli";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";

describe("pytorch/job-inprocess.yaml", () => {
  const result = parseJobYaml(readFileSync(new URL("./job-inprocess.yaml", import.meta.url), "utf8"));

  it("parses, and runs train_inprocess.py under an in-process-restart agent with INPROCESS_RESTART=1", () => {
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const container = result.job.spec.replicaSpecs[0]?.template.spec.containers[0];
    const command = Array.isArray(container?.command) ? container.command.map(String) : [];
    expect(command.slice(0, 2)).toEqual(["npx", "rebound-agent"]);
    const parsed = parseAgentArgs(command.slice(2));
    if (parsed.kind !== "config") throw new Error(`agent flags: ${JSON.stringify(parsed)}`);
    expect(parsed.config).toMatchObject({
      inprocessRestart: true,
      inprocessTimeoutSeconds: 120,
      script: "examples/pytorch/train_inprocess.py",
    });
    expect(parsed.config.scriptArgs).toContain("--peer-recovery");
    expect(container?.env).toContainEqual({ name: "INPROCESS_RESTART", value: "1" });
  });
});
