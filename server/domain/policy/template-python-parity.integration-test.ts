import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type CompiledPattern, compilePattern } from "@/server/domain/log-rules/pattern";
import { loadCorpus } from "./log-corpus/corpus";
import { parsePolicyYaml } from "./policy-yaml";
import { POLICY_TEMPLATES } from "./templates";

/**
 * The shipped templates' patterns, run by Python's own `re.match` (what the HyperPod agent runs) and by
 * ours (RE2 via re2js) on every line of the corpus: the same lines match and group 1 captures the same
 * text. Python reads each line as the agent's readline gives it (with its "\n"). Needs python3 (a test
 * prerequisite: the real agent's tests run it too).
 */

const PYTHON = String.raw`
import json, re, sys
job = json.load(sys.stdin)
out = []
for source in job["patterns"]:
    pattern = re.compile(source)
    row = []
    for line in job["lines"]:
        m = pattern.match(line + "\n")
        row.append(None if m is None else [m.group(1) if pattern.groups else None])
    out.append(row)
json.dump(out, sys.stdout)
`;

const rules = POLICY_TEMPLATES.flatMap((template) => {
  const parsed = parsePolicyYaml(template.yaml);
  if (!parsed.ok) throw new Error(template.id);
  return (parsed.runPolicy.logMonitoringConfiguration ?? []).map((rule) => ({ template: template.id, rule }));
});
const lines = loadCorpus().lines.map((line) => line.text);

function pythonMatches(patterns: readonly string[]): (null | [string | null])[][] {
  const result = spawnSync("python3", ["-c", PYTHON], {
    input: JSON.stringify({ patterns, lines }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`python3: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout);
}

/** What our engine makes of the line as the agent reads it: null, or [group 1 or null]. */
function ourMatch(pattern: CompiledPattern, line: string): null | [string | null] {
  const match = pattern.match(`${line}\n`);
  if (match === null) return null;
  return [pattern.groupCount > 0 ? (match.groups[0] ?? null) : null];
}

describe("shipped templates under Python's re", () => {
  const python = pythonMatches(rules.map(({ rule }) => rule.logPattern));

  it.each(
    rules.map(({ template, rule }, index) => [`${template} ${rule.name}`, rule.logPattern, index] as const),
  )("%s matches and captures as Python does on every corpus line", (_name, source, index) => {
    const ours = compilePattern(source);
    if (!ours.ok) throw new Error(ours.reason);
    const pattern = ours.pattern;
    const differences = lines.flatMap((line, i) => {
      const mine = ourMatch(pattern, line);
      const theirs = python[index]?.[i] ?? null;
      if (JSON.stringify(mine) === JSON.stringify(theirs)) return [];
      return [`${line.slice(0, 160)}: ours ${JSON.stringify(mine)}, Python ${JSON.stringify(theirs)}`];
    });
    expect(differences).toEqual([]);
  });
});
