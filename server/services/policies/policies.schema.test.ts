import { describe, expect, it } from "vitest";
import { fieldPath } from "@/server/api/trpc";
import {
  createPolicyInputSchema,
  dryRunInputSchema,
  MAX_POLICY_YAML_CHARS,
  savePolicyInputSchema,
} from "./policies.schema";

const TEAM = "4f1c2a9e-8a43-4c55-9d0e-2b6f7f1d9a10";
const ID = "0b7e6a52-7d8f-4d53-8c1a-6f9c3e2d1b00";

function problems(result: {
  success: boolean;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}) {
  return (result.error?.issues ?? []).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
}

describe("policy inputs", () => {
  it("refuses a 10 MB paste saying how big it was and what to do, and fast", () => {
    const started = performance.now();
    const result = savePolicyInputSchema.safeParse({
      id: ID,
      yaml: "x".repeat(10 * 1024 * 1024),
      baseVersion: 1,
    });
    expect(performance.now() - started).toBeLessThan(100);
    expect(problems(result)).toEqual([
      "yaml: 10.0 MB is over the limit of 64 KB: a policy is a runPolicy mapping (restartPolicy, logMonitoringConfiguration, …); paste logs into the dry-run instead",
    ]);
  });

  it("takes a policy of exactly the limit", () => {
    const yaml = `# ${"x".repeat(MAX_POLICY_YAML_CHARS - 2)}`;
    expect(savePolicyInputSchema.safeParse({ id: ID, yaml, baseVersion: 1 }).success).toBe(true);
  });

  it("names each bad field of a create", () => {
    const result = createPolicyInputSchema.safeParse({
      teamId: "llm-research",
      name: "two\nlines",
      yaml: "restartPolicy: {}",
      message: "m".repeat(501),
    });
    expect(problems(result)).toEqual([
      "teamId: expected a team id",
      "name: no line breaks, tabs or control characters",
      "message: at most 500 characters",
    ]);
  });

  it("trims the name and defaults description and message", () => {
    const parsed = createPolicyInputSchema.parse({ teamId: TEAM, name: "  hang  ", yaml: "" });
    expect(parsed).toMatchObject({ name: "hang", description: "", message: "" });
  });

  it("bounds a dry-run's log text and refuses a rank's tail (a rank's whole attempt is read)", () => {
    const text = dryRunInputSchema.safeParse({
      yaml: "",
      source: { kind: "text", text: "a".repeat(600 * 1024) },
    });
    expect(problems(text)).toEqual([
      "source.text: 600 KB is over the limit of 512 KB: dry-run a shorter excerpt (the lines around the fault)",
    ]);
    const rank = dryRunInputSchema.safeParse({
      yaml: "",
      source: { kind: "rank", namespace: "hyperpod-ns-llm-research", name: "demo", rank: 0, tail: 5000 },
    });
    expect(problems(rank)).toEqual(['source: Unrecognized key: "tail"']);
    const negative = dryRunInputSchema.safeParse({
      yaml: "",
      source: { kind: "rank", namespace: "hyperpod-ns-llm-research", name: "demo", rank: -1 },
    });
    expect(problems(negative)).toEqual(["source.rank: expected a rank (a whole number ≥ 0)"]);
    const unknown = dryRunInputSchema.safeParse({ yaml: "", source: { kind: "file", path: "/etc/passwd" } });
    expect(problems(unknown)).toEqual(["source.kind: expected source kind text or rank"]);
  });

  it("accepts a 100,000-character line for a dry-run", () => {
    const result = dryRunInputSchema.safeParse({
      yaml: "",
      source: { kind: "text", text: "a".repeat(100_000) },
    });
    expect(result.success).toBe(true);
  });
});
