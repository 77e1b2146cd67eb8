import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";

/**
 * What to write instead of a construct the linear-time engine (RE2) cannot run, appended to the schema's
 * "is not supported" message. RE2 never backtracks, so a pattern costs time linear in the line: constructs
 * that need backtracking or memory of earlier text are refused rather than run.
 */
const ADVICE: ReadonlyArray<[RegExp, string]> = [
  [
    /negative lookahead/,
    "match the lines you do want directly (e.g. `loss=[0-9]` rather than `loss=(?!nan)`), or end the rule with stopPattern",
  ],
  [/lookahead/, "drop the (?=…) and match the text itself; a group (…) captures just the part you need"],
  [
    /lookbehind/,
    "match the text before it as well and capture the part you want: `loss=([0-9.]+)` rather than `(?<=loss=)[0-9.]+`",
  ],
  [/backreference/, "write the repeated text out, or allow either spelling with (a|b)"],
  [/possessive/, "drop the extra + after the quantifier: RE2 never backtracks, so it is not needed"],
  [/atomic group/, "use a plain group (…): RE2 never backtracks, so it is not needed"],
  [/conditional/, "split it into two rules, or use an alternation (a|b)"],
  [/recursion|subroutine/, "RE2 has no recursion; match a bounded depth with an explicit pattern"],
];

export function patternAdvice(message: string): string | null {
  if (!/not supported: patterns run with a linear-time engine/.test(message)) return null;
  return ADVICE.find(([construct]) => construct.test(message))?.[1] ?? null;
}

export function withPatternAdvice(errors: readonly JobSpecError[]): JobSpecError[] {
  return errors.map((error) => {
    const advice = patternAdvice(error.message);
    return advice === null ? error : { ...error, message: `${error.message}; instead, ${advice}` };
  });
}
