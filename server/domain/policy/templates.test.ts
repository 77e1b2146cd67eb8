import { describe, expect, it } from "vitest";
import { dryRun } from "./dry-run";
import { parsePolicyYaml } from "./policy-yaml";
import { POLICY_TEMPLATES } from "./templates";

/**
 * Every shipped template against its own sample lines: it parses, it fires (a fault while the output still
 * runs, at or before its last line) on the lines it is for, and it stays quiet on the harmless ones. A hang
 * rule fires once output stops for good, so "quiet" is judged up to the last line.
 */
function faultWhileRunning(yaml: string, lines: readonly string[]) {
  const parsed = parsePolicyYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const result = dryRun({ runPolicy: parsed.runPolicy, logText: lines.join("\n") });
  return result.fault !== null && result.fault.at <= result.outputEndedAt ? result.fault : null;
}

describe("policy templates", () => {
  it("ships ten, with unique ids", () => {
    expect(POLICY_TEMPLATES.map((t) => t.id)).toEqual([
      "hang",
      "start-cut-off",
      "nan-loss",
      "loss-spike",
      "low-throughput",
      "cuda-oom",
      "nccl-timeout",
      "nccl-failure",
      "gpu-hardware",
      "checkpoint-overdue",
    ]);
  });

  for (const template of POLICY_TEMPLATES) {
    describe(template.name, () => {
      it("parses with no warning", () => {
        const parsed = parsePolicyYaml(template.yaml);
        expect(parsed.ok ? parsed.warnings : parsed.errors).toEqual([]);
      });

      it("fires on its bad lines, naming its rule", () => {
        const parsed = parsePolicyYaml(template.yaml);
        const rule = parsed.ok ? parsed.runPolicy.logMonitoringConfiguration?.[0]?.name : undefined;
        expect(rule).toBeDefined();
        expect(faultWhileRunning(template.yaml, template.samples.fires)?.rule).toBe(rule);
      });

      it("stays quiet on its good lines", () => {
        expect(faultWhileRunning(template.yaml, template.samples.quiet)).toBeNull();
      });
    });
  }

  const onMatch = POLICY_TEMPLATES.filter((template) => template.yaml.includes("faultOnMatch: true"));
  it.each(onMatch.map((template) => [template.name, template] as const))(
    "%s fires on each of its bad lines alone",
    (_name, template) => {
      for (const line of template.samples.fires)
        expect(faultWhileRunning(template.yaml, [line]), line).not.toBeNull();
    },
  );
});
