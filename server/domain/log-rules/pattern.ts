import { RE2JS } from "re2js";
import { programSizeProblem, repeatCostProblem } from "./pattern-cost";
import { translatePythonPattern } from "./python-syntax";

/**
 * Log-rule regexes, compiled for a linear-time engine (re2js, a pure-JS RE2 port). User patterns are
 * never handed to JavaScript's backtracking RegExp, so a pattern like `(a+)+$` cannot stall the agent.
 *
 * Matching follows Python `re.match` (what the HyperPod agent uses): anchored at the start of the line,
 * not at its end, so `loss` matches "loss=1" but not "the loss", and rules are written `.*foo.*`.
 *
 * Line handling, applied before matching:
 * - a line longer than MAX_LINE_CHARS UTF-16 units is cut to its first MAX_LINE_CHARS (never splitting
 *   a surrogate pair), bounding the cost of one match. The patterns then see the cut text followed by
 *   one U+FFFF standing for the rest, so `$` and `\z` cannot match at the cut (Python would not match
 *   there either: the real line goes on). A match that needs text past the cut is not found;
 * - a pattern of more than MATCH_WORK / MAX_LINE_CHARS (64) instructions sees fewer characters:
 *   MATCH_WORK / its instruction count (a 1,200-instruction pattern sees the first 873), cut the same
 *   way. The engine pays every live instruction on every character, so this bounds one match (about
 *   70 ms for the costliest pattern pattern-cost.ts accepts) however the pattern is written. The
 *   HyperPod's documented patterns (11-61 instructions) see the whole 16 KiB;
 * - one trailing "\n" is dropped. The agent reads lines with Python's readline() (terminator kept) and
 *   Python's `$` also matches just before a final "\n"; RE2's `$` does not, so we strip it instead.
 *
 * Known differences from Python that remain: `\d`, `\w`, `\s`, `\b` are ASCII-only in RE2 (Unicode in
 * Python); Python-only syntax is translated or rejected (see python-syntax.ts).
 */

export const MAX_PATTERN_CHARS = 1000;
export const MAX_LINE_CHARS = 16_384;
/** Instructions × characters one match may cost (pattern-cost.ts bounds the instructions). */
export const MATCH_WORK = MAX_LINE_CHARS * 64;

/** groups[0] is the first capturing group; a group that did not take part in the match is undefined. */
export type RegexMatch = { groups: readonly (string | undefined)[] };

export type CompiledPattern = {
  source: string;
  groupCount: number;
  /** Instructions of the compiled program (RE2JS.programSize). */
  instructions: number;
  /** How many characters of a line this pattern sees (MAX_LINE_CHARS, or fewer for a large program). */
  lineChars: number;
  match(line: string): RegexMatch | null;
};

/** `cost`: the pattern is valid but too costly to run on every line (pattern-cost.ts); the reason reads after "logPattern ". */
export type CompilePatternResult =
  | { ok: true; pattern: CompiledPattern }
  | { ok: false; reason: string; cost?: true };

/** U+FFFF is a noncharacter: it never occurs in real logs, but `.`, `\S`, `[^x]` match it like any text. */
const CUT_MARK = "\uffff";

function cutLine(line: string, max: number): { text: string; cut: boolean } {
  if (line.length <= max) return { text: line, cut: false };
  const last = line.charCodeAt(max - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return { text: line.slice(0, splitsPair ? max - 1 : max), cut: true };
}

/** The line as stored (e.g. as a rule's last matched line): cut to MAX_LINE_CHARS, trailing "\n" dropped. */
export function prepareLine(line: string): string {
  const { text, cut } = cutLine(line, MAX_LINE_CHARS);
  return !cut && text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** Characters of a line that a program of `instructions` instructions is run on. */
export function lineCharsFor(instructions: number): number {
  return Math.min(MAX_LINE_CHARS, Math.floor(MATCH_WORK / Math.max(1, instructions)));
}

function matchText(line: string, max: number): string {
  const { text, cut } = cutLine(line, max);
  if (cut) return `${text}${CUT_MARK}`;
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function compileRe2(source: string): { ok: true; re: RE2JS } | { ok: false; reason: string } {
  try {
    return { ok: true, re: RE2JS.compile(source) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `invalid or unsupported pattern (RE2 syntax): ${detail}` };
  }
}

export function compilePattern(source: string): CompilePatternResult {
  if (source.length > MAX_PATTERN_CHARS) {
    return {
      ok: false,
      reason: `pattern is ${source.length} characters long; the limit is ${MAX_PATTERN_CHARS}`,
    };
  }
  const translated = translatePythonPattern(source);
  if (!translated.ok) return translated;
  const repeatProblem = repeatCostProblem(translated.source);
  if (repeatProblem !== null) return { ok: false, reason: repeatProblem, cost: true };
  const compiled = compileRe2(translated.source);
  if (!compiled.ok) return compiled;
  const re = compiled.re;
  const instructions = re.programSize();
  const sizeProblem = programSizeProblem(instructions);
  if (sizeProblem !== null) return { ok: false, reason: sizeProblem, cost: true };
  const groupCount = re.groupCount();
  const lineChars = lineCharsFor(instructions);
  const match = (line: string): RegexMatch | null => {
    const matcher = re.matcher(matchText(line, lineChars));
    if (!matcher.lookingAt()) return null;
    const groups: (string | undefined)[] = [];
    for (let g = 1; g <= groupCount; g += 1) groups.push(matcher.group(g) ?? undefined);
    return { groups };
  };
  return { ok: true, pattern: { source, groupCount, instructions, lineChars, match } };
}
