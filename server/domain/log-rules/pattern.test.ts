import { describe, expect, it } from "vitest";
import {
  type CompiledPattern,
  compilePattern,
  MAX_LINE_CHARS,
  MAX_PATTERN_CHARS,
  prepareLine,
} from "./pattern";

function pattern(source: string): CompiledPattern {
  const result = compilePattern(source);
  if (!result.ok) throw new Error(result.reason);
  return result.pattern;
}

function reasonFor(source: string): string {
  const result = compilePattern(source);
  if (result.ok) throw new Error(`expected ${source} to be rejected`);
  return result.reason;
}

const ENGINE = "is not supported: patterns run with a linear-time engine (RE2 syntax)";

describe("compilePattern: Python re.match semantics", () => {
  it("anchors at the start of the line only", () => {
    expect(pattern("loss").match("loss=1")).not.toBeNull();
    expect(pattern("loss").match("the loss")).toBeNull();
    expect(pattern(".*loss.*").match("the loss=1")).not.toBeNull();
    expect(pattern("loss=1").match("loss=1 and more")).not.toBeNull();
  });

  it("returns capture groups, groups[0] being the first", () => {
    const p = pattern(String.raw`.*loss=(\d+(?:\.\d+)?) step=(\d+)`);
    expect(p.groupCount).toBe(2);
    expect(p.match("[rank0] loss=1.25 step=7")?.groups).toEqual(["1.25", "7"]);
  });

  it("reports a group that did not take part as undefined", () => {
    expect(pattern("(a)?b(c)").match("bc")?.groups).toEqual([undefined, "c"]);
  });

  it("supports the Python syntax users write", () => {
    expect(pattern("(?P<loss>[0-9.eE+-]+)").match("1.5e-3 rest")?.groups).toEqual(["1.5e-3"]);
    expect(pattern(String.raw`\s*\d+`).match("  42")).not.toBeNull();
    expect(pattern("(?:ab)+c").match("ababc")).not.toBeNull();
    expect(pattern("(?i)loss").match("LOSS: 1")).not.toBeNull();
    expect(pattern("(?i:err)OR").match("ErrOR")).not.toBeNull();
    expect(pattern("(?i:err)OR").match("Error")).toBeNull();
    expect(pattern(String.raw`(?a)\d`).match("7")).not.toBeNull();
    expect(pattern(".*Epoch 0 Batch \\d+.*'training_loss_step': (\\d+(\\.\\d+)?).*").groupCount).toBe(2);
  });

  it("translates Python-only syntax", () => {
    expect(pattern(String.raw`done\Z`).match("done")).not.toBeNull();
    expect(pattern(String.raw`done\Z`).match("done!")).toBeNull();
    expect(pattern("a{,2}b").match("aab")).not.toBeNull();
    expect(pattern("a{,2}b").match("aaab")).toBeNull();
    expect(pattern("x{}").match("x{}")).not.toBeNull();
    expect(pattern("lo(?#a comment)ss").match("loss")).not.toBeNull();
    expect(pattern(String.raw`caf\u00e9`).match("café")).not.toBeNull();
    expect(pattern("[[]x").match("[x")).not.toBeNull();
    expect(pattern(String.raw`\101`).match("A")).not.toBeNull();
  });

  it("lets $ match before a trailing newline, as Python does", () => {
    expect(pattern(".*done$").match("all done\n")).not.toBeNull();
    expect(pattern(".*done$").match("all done")).not.toBeNull();
  });

  it("runs a pathological pattern in linear time", () => {
    const p = pattern("(a+)+$");
    expect(p.match(`${"a".repeat(50_000)}!`)).toBeNull();
    expect(p.match(`${"a".repeat(MAX_LINE_CHARS - 1)}!`)).toBeNull();
    expect(pattern("(x+x+)+y").match("x".repeat(MAX_LINE_CHARS))).toBeNull();
    expect(pattern("(.*a){12}$").match(`${"a".repeat(MAX_LINE_CHARS - 1)}b`)).toBeNull();
    expect(p.match("a".repeat(100))).not.toBeNull();
  });
});

describe("compilePattern: rejections", () => {
  it.each([
    ["(a)\\1", `backreference \\1 ${ENGINE}`],
    ["(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)\\11", `backreference \\11 ${ENGINE}`],
    ["(?P<x>a)(?P=x)", `named backreference (?P=name) ${ENGINE}`],
    ["a(?=b)", `lookahead (?=...) ${ENGINE}`],
    ["a(?!b)", `negative lookahead (?!...) ${ENGINE}`],
    ["(?<=a)b", `lookbehind (?<=...) ${ENGINE}`],
    ["(?<!a)b", `negative lookbehind (?<!...) ${ENGINE}`],
    ["(?>a+)b", `atomic group (?>...) ${ENGINE}`],
    ["a*+b", `possessive quantifier (*+, ++, ?+, {m,n}+) ${ENGINE}`],
    ["a++b", `possessive quantifier (*+, ++, ?+, {m,n}+) ${ENGINE}`],
    ["a?+b", `possessive quantifier (*+, ++, ?+, {m,n}+) ${ENGINE}`],
    ["a{2,3}+b", `possessive quantifier (*+, ++, ?+, {m,n}+) ${ENGINE}`],
    ["(a)?(?(1)b|c)", `conditional group (?(id)yes|no) ${ENGINE}`],
    ["(?x) a b", `verbose flag (?x) ${ENGINE}`],
  ])("rejects %s", (source, reason) => {
    expect(reasonFor(source)).toBe(reason);
  });

  it("refuses global flags where Python 3.11 does (the HyperPod agent would load none of the job's rules)", () => {
    expect(reasonFor(".*((?i)cuda out of memory).*")).toBe(
      "global flags not at the start of the expression at position 3 (Python refuses it): write (?i) first, or a group (?i:...)",
    );
    expect(reasonFor("(?-i)a")).toMatch(/^missing : at position 0/);
    expect(compilePattern("(?i)(?s)a").ok).toBe(true);
    expect(compilePattern(".*(?i:cuda out of memory).*").ok).toBe(true);
  });

  it("does not mistake escapes, classes or lazy quantifiers for rejected constructs", () => {
    expect(compilePattern(String.raw`\(?=x`).ok).toBe(true);
    expect(compilePattern("[(?=]+").ok).toBe(true);
    expect(compilePattern("a+?b*?c??").ok).toBe(true);
    expect(compilePattern(String.raw`a\++`).ok).toBe(true);
  });

  it("passes RE2's own syntax errors through", () => {
    expect(reasonFor("(unclosed")).toMatch(
      /^invalid or unsupported pattern \(RE2 syntax\): .*missing closing \)/,
    );
  });

  it("limits the pattern length", () => {
    expect(compilePattern("a".repeat(MAX_PATTERN_CHARS)).ok).toBe(true);
    expect(reasonFor("a".repeat(MAX_PATTERN_CHARS + 1))).toBe(
      "pattern is 1001 characters long; the limit is 1000",
    );
  });
});

describe("line preparation", () => {
  it("cuts lines longer than MAX_LINE_CHARS before matching", () => {
    const p = pattern(".*END");
    expect(p.match(`${"a".repeat(MAX_LINE_CHARS - 3)}END`)).not.toBeNull();
    expect(p.match(`${"a".repeat(MAX_LINE_CHARS)}END`)).toBeNull();
    expect(pattern("START.*").match(`START${"b".repeat(MAX_LINE_CHARS)}`)).not.toBeNull();
    expect(prepareLine("b".repeat(MAX_LINE_CHARS + 10))).toHaveLength(MAX_LINE_CHARS);
  });

  it("does not let $ match where a long line was cut", () => {
    const long = "a".repeat(MAX_LINE_CHARS + 5);
    expect(pattern("a+$").match(long)).toBeNull();
    expect(pattern("a+$").match("a".repeat(MAX_LINE_CHARS))).not.toBeNull();
    expect(pattern(".*$").match(long)).not.toBeNull();
  });

  it("never splits a surrogate pair", () => {
    const line = `${"a".repeat(MAX_LINE_CHARS - 1)}😀tail`;
    expect(prepareLine(line)).toBe("a".repeat(MAX_LINE_CHARS - 1));
  });

  it("drops one trailing newline", () => {
    expect(prepareLine("x\n")).toBe("x");
    expect(prepareLine("x\n\n")).toBe("x\n");
  });
});
