import { describe, expect, it } from "vitest";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { parseJobYaml } from "./parse-job";
import { MAX_LOG_RULES } from "./run-policy.schema";
import { parseShadowAnnotation, SHADOW_ANNOTATION } from "./shadow-annotation";

const rule = (name: string, logPattern: string) => ({ name, logPattern });
const valid = (count: number, prefix = "Watch") =>
  Array.from({ length: count }, (_, i) => rule(`${prefix}${i}`, `.*step ${i}`));

describe("a shadow annotation's rules", () => {
  it("keeps every rule within the limits", () => {
    const rules = valid(3);
    expect(parseShadowAnnotation(JSON.stringify(rules))).toEqual({ rules, dropped: [] });
    expect(parseShadowAnnotation(undefined)).toEqual({ rules: [], dropped: [] });
  });

  it("drops each rule over a limit alone, naming it and the limit", () => {
    const text = JSON.stringify([
      rule("Kept", ".*loss"),
      rule("StepHang", "(.*a){100}x"),
      { name: "NoPattern" },
      rule("BadSyntax", "(unclosed"),
      { ...rule("SlowStop", ".*ok"), stopPattern: "(.*b){65}" },
      rule("AlsoKept", ".*nan"),
    ]);
    const { rules, dropped } = parseShadowAnnotation(text);
    expect(rules.map((kept) => kept.name)).toEqual(["Kept", "AlsoKept"]);
    expect(dropped).toEqual([
      { index: 1, name: "StepHang", reason: "logPattern repeats (.*a) 100 times; at most 64" },
      { index: 2, name: "NoPattern", reason: expect.stringMatching(/^logPattern: /) },
      {
        index: 3,
        name: "BadSyntax",
        reason: expect.stringMatching(/^logPattern: invalid or unsupported pattern/),
      },
      { index: 4, name: "SlowStop", reason: "stopPattern repeats (.*b) 65 times; at most 64" },
    ]);
  });

  it(`keeps the first ${MAX_LOG_RULES} valid rules and drops the rest, each named`, () => {
    const text = JSON.stringify([rule("Broken", "("), ...valid(MAX_LOG_RULES + 2)]);
    const { rules, dropped } = parseShadowAnnotation(text);
    expect(rules).toHaveLength(MAX_LOG_RULES);
    expect(rules.at(-1)?.name).toBe(`Watch${MAX_LOG_RULES - 1}`);
    expect(dropped.map(({ index, name }) => [index, name])).toEqual([
      [0, "Broken"],
      [MAX_LOG_RULES + 1, `Watch${MAX_LOG_RULES}`],
      [MAX_LOG_RULES + 2, `Watch${MAX_LOG_RULES + 1}`],
    ]);
    expect(dropped[1]?.reason).toBe(
      `past the first ${MAX_LOG_RULES} rules: at most ${MAX_LOG_RULES} log monitoring rules per job (each runs on every output line)`,
    );
  });

  it.each([
    ["not JSON", "[{", /^not JSON \(/],
    ["not a list", '{"name":"x"}', /^expected a JSON list of log monitoring rules, got an object$/],
  ])("drops the whole annotation when it is %s", (_what, text, reason) => {
    const { rules, dropped } = parseShadowAnnotation(text);
    expect(rules).toEqual([]);
    expect(dropped).toEqual([{ index: null, name: null, reason: expect.stringMatching(reason) }]);
  });
});

describe("submitting a job with shadow rules over the limits", () => {
  it("is accepted with a warning per dropped rule, at the annotation's line", () => {
    const shadow = [rule("Kept", ".*loss"), rule("StepHang", "(.*a){100}x"), { name: "NoPattern" }];
    const yaml = demoJobYaml({
      name: "shadowed",
      nodes: 1,
      ranks: 1,
      annotations: { [SHADOW_ANNOTATION]: JSON.stringify(shadow) },
    });
    const parsed = parseJobYaml(yaml);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const line = yaml.split("\n").findIndex((text) => text.includes(SHADOW_ANNOTATION)) + 1;
    const path = `metadata.annotations["${SHADOW_ANNOTATION}"]`;
    expect(parsed.warnings.filter((warning) => warning.path === path)).toEqual([
      {
        path,
        line,
        column: expect.any(Number),
        message:
          "shadow rule StepHang ([1]) dropped, the operator will not watch it: logPattern repeats (.*a) 100 times; at most 64",
      },
      {
        path,
        line,
        column: expect.any(Number),
        message: expect.stringMatching(
          /^shadow rule NoPattern \(\[2\]\) dropped, the operator will not watch it: logPattern: /,
        ),
      },
    ]);
  });

  it("has no shadow warnings when every rule is kept", () => {
    const yaml = demoJobYaml({
      name: "shadowed",
      nodes: 1,
      ranks: 1,
      annotations: { [SHADOW_ANNOTATION]: JSON.stringify(valid(2)) },
    });
    const parsed = parseJobYaml(yaml);
    expect(parsed.ok && parsed.warnings.filter((warning) => warning.path.startsWith("metadata"))).toEqual([]);
  });
});
