import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { MAX_LOG_RULES, runPolicySchema } from "../job-spec/run-policy.schema";
import { logMonitoringRuleSchema } from "./log-rule.schema";
import { compilePattern, lineCharsFor, MATCH_WORK, MAX_LINE_CHARS, MAX_PATTERN_CHARS } from "./pattern";
import { countedRepeats, MAX_PROGRAM_INSTRUCTIONS, MAX_REPEAT, MAX_REPEAT_TOTAL } from "./pattern-cost";

function refusal(logPattern: string, name = "StepHang"): string | null {
  const result = logMonitoringRuleSchema.safeParse({ name, logPattern });
  return result.success ? null : result.error.issues.map((issue) => issue.message).join(" | ");
}

/** Patterns of HyperPod's documented rules and of rules written for real training logs. */
const REALISTIC = [
  ".*Experiment configuration.*",
  String.raw`.*\[Epoch 0 Batch \d+.*'training_loss_step': (\d+(\.\d+)?).*`,
  ".*The checkpoint is finalized. All shards is written.*",
  String.raw`.*\[Epoch 0 Batch \d+.*'samples\/sec': (\d+(\.\d+)?).*`,
  ".*Train Epoch.*",
  String.raw`.*training_loss_step (\d+(?:\.\d+)?).*`,
  ".* (.+)TFLOPs.*",
  ".*RuntimeError.*out of memory.*",
  ".*Loss:.*",
  String.raw`.*(?:torch\.OutOfMemoryError|torch\.cuda\.OutOfMemoryError|CUDA out of memory|Cuda failure 'out of memory'|out of memory).*`,
  String.raw`.*NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): (?:48|64|74|79|94|95|149|154),.*`,
  String.raw`.*\blm loss: ([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\b.*`,
  String.raw`.*step: (\d+)\s+loss:\s+([-+]?\d+\.\d+).*`,
  String.raw`.*\{'loss': ([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan), 'grad_norm'.*`,
  "(?i).*(?:nccl|watchdog).*(?:timeout|timed out|error).*",
  String.raw`.*\[rank\d+\]:.*Watchdog caught collective operation timeout.*`,
  String.raw`^[EW]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [\w./]+:\d+\] .*`,
  ".*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.*",
  ".*commit [0-9a-f]{40}.*",
  ".*Current loss scale already at minimum.*",
  String.raw`.*global_step=([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?).*`,
];

function examplePatterns(): string[] {
  const dir = path.join(process.cwd(), "examples");
  const files = ["jobs/demo-job.yaml", "jobs/small-job.yaml", "pytorch/job.yaml"];
  return files.flatMap((file) => {
    const doc = parseDocument(readFileSync(path.join(dir, file), "utf8")).toJS() as {
      spec: { runPolicy?: { logMonitoringConfiguration?: { logPattern: string; stopPattern?: string }[] } };
    };
    const rules = doc.spec.runPolicy?.logMonitoringConfiguration ?? [];
    return rules.flatMap((rule) => [rule.logPattern, ...(rule.stopPattern ? [rule.stopPattern] : [])]);
  });
}

describe("pattern cost: what realistic rules need passes", () => {
  it.each(REALISTIC)("accepts %s", (pattern) => {
    expect(refusal(pattern)).toBeNull();
  });

  it("accepts every pattern of the example jobs", () => {
    const patterns = examplePatterns();
    expect(patterns.length).toBeGreaterThan(5);
    for (const pattern of patterns) expect(refusal(pattern), pattern).toBeNull();
  });

  it("lets HyperPod's documented patterns see a whole 16 KiB line", () => {
    for (const pattern of REALISTIC.slice(0, 9)) {
      const compiled = compilePattern(pattern);
      if (!compiled.ok) throw new Error(compiled.reason);
      expect(compiled.pattern.lineChars, pattern).toBe(MAX_LINE_CHARS);
    }
  });

  it("accepts any pattern of the length limit without counted repetition", () => {
    for (const unit of ["a", ".*a", "(a|b)", "[a-z]", String.raw`\pL`]) {
      const pattern = unit.repeat(Math.floor(MAX_PATTERN_CHARS / unit.length));
      expect(refusal(pattern), unit).toBeNull();
    }
  });
});

describe("pattern cost: counted repetition", () => {
  it("refuses the issue's (.*a){100}x naming the rule, the repeated part and the bound", () => {
    expect(refusal("(.*a){100}x")).toBe(
      `rule StepHang: logPattern repeats (.*a) 100 times; at most ${MAX_REPEAT}`,
    );
  });

  it("counts {n,}, {n,m} by their larger bound and refuses past re2's own 1000", () => {
    expect(refusal("a{65,}")).toContain("repeats a 65 times");
    expect(refusal("a{2,65}")).toContain("repeats a 65 times");
    expect(refusal("a{0,64}")).toBeNull();
    expect(refusal("x{2000}")).toContain(`repeats x 2000 times; at most ${MAX_REPEAT}`);
  });

  it("multiplies nested repetitions", () => {
    expect(refusal("((.*a){10}){10}x")).toBe(
      `rule StepHang: logPattern repeats (.*a) 10 times inside another repetition (100 copies); at most ${MAX_REPEAT}`,
    );
    expect(refusal("(?:[0-9a-f]{8}){8}")).toBeNull();
    expect(refusal(String.raw`(\d{3}[.]){3}`)).toBeNull();
  });

  it("adds up every counted repetition of a pattern", () => {
    expect(refusal(".*.{64}.{64}x")).toBeNull();
    expect(refusal(".*.{64}.{64}.{64}x")).toBe(
      `rule StepHang: logPattern has 192 copies from counted repetitions in all (.{64} .{64} .{64}); at most ${MAX_REPEAT_TOTAL}`,
    );
  });

  it("names the operand whatever it is: an escape, a class, a group, a Unicode class", () => {
    expect(countedRepeats(String.raw`\d{4}-[a-z]{2}(ab|c){3}\pL{5}\p{Greek}{6}x{7}`)).toEqual([
      { atom: String.raw`\d`, count: 4, at: 0, copies: 4 },
      { atom: "[a-z]", count: 2, at: 6, copies: 2 },
      { atom: "(ab|c)", count: 3, at: 14, copies: 3 },
      { atom: String.raw`\pL`, count: 5, at: 23, copies: 5 },
      { atom: String.raw`\p{Greek}`, count: 6, at: 29, copies: 6 },
      { atom: "x", count: 7, at: 41, copies: 7 },
    ]);
  });

  it("does not read braces inside classes, escaped braces or literal text as repetition", () => {
    expect(countedRepeats(String.raw`[{100}]\{100\}a\Q{100}\E`)).toEqual([]);
    expect(countedRepeats("[]{}]{3}")).toEqual([{ atom: "[]{}]", count: 3, at: 0, copies: 3 }]);
  });

  it("checks the stopPattern too, naming it", () => {
    const result = logMonitoringRuleSchema.safeParse({
      name: "Done",
      logPattern: "x",
      stopPattern: "(y){99}",
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["stopPattern"]);
    expect(result.error?.issues[0]?.message).toBe(
      `rule Done: stopPattern repeats (y) 99 times; at most ${MAX_REPEAT}`,
    );
  });
});

describe("pattern cost: program size and the work of one match", () => {
  it("refuses a program over the bound", () => {
    // Within the repeat bounds (64 copies), but each copy of the group is 23 instructions.
    const pattern = "(?:ab|cd|ef|gh|ij|kl|mn|op){64}";
    const compiled = compilePattern(pattern);
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(compiled.reason).toMatch(
      new RegExp(`^compiles to \\d+ instructions; at most ${MAX_PROGRAM_INSTRUCTIONS}`),
    );
    expect(refusal(pattern)).toMatch(/^rule StepHang: logPattern compiles to \d+ instructions/);
  });

  it("runs a large program on fewer characters, so one match stays within MATCH_WORK", () => {
    expect(lineCharsFor(20)).toBe(MAX_LINE_CHARS);
    expect(lineCharsFor(64)).toBe(MAX_LINE_CHARS);
    expect(lineCharsFor(128)).toBe(MATCH_WORK / 128);
    const compiled = compilePattern("(.*a){64}x");
    if (!compiled.ok) throw new Error(compiled.reason);
    const { lineChars, instructions } = compiled.pattern;
    expect(lineChars * instructions).toBeLessThanOrEqual(MATCH_WORK);
    // An x past the characters this pattern sees is not found; one within them is.
    const as = "a".repeat(64);
    expect(compiled.pattern.match(`${as}${"b".repeat(lineChars)}x`)).toBeNull();
    expect(compiled.pattern.match(`${as}x${"b".repeat(lineChars)}`)).not.toBeNull();
  });
});

describe("rules per job", () => {
  const rules = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ name: `r${i}`, logPattern: ".*x.*" }));

  it(`accepts ${MAX_LOG_RULES} rules and refuses one more, saying how many`, () => {
    expect(runPolicySchema.safeParse({ logMonitoringConfiguration: rules(MAX_LOG_RULES) }).success).toBe(
      true,
    );
    const refused = runPolicySchema.safeParse({ logMonitoringConfiguration: rules(100) });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        ["logMonitoringConfiguration"],
        `at most ${MAX_LOG_RULES} log monitoring rules per job (each runs on every output line); got 100`,
      ],
    ]);
    expect(refused.error?.issues[0]?.code).toBe("custom");
  });
});
