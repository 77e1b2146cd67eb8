import { createHash } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { type CompiledPattern, compilePattern } from "@/server/domain/log-rules/pattern";
import { type MarkingRule, type MarkMetric, metricTrips } from "./log-matcher-rules";

/**
 * The worker thread behind log-matcher.ts: runs the rules' logPatterns over the lines of one logs-view
 * request within its time budget, so user patterns never run on the console's event loop. Compiled
 * patterns and each line's progress through a rule set are cached (the logs view asks for mostly the same
 * tail every 2 s), so a line whose rules cost more than one budget is finished over the next requests
 * instead of started over each time.
 *
 * The budget holds before a rule starts, not only between rules: a rule whose last measured cost (per
 * character it sees) would take the request past its budget is left for the next request. The first rule
 * of a request always runs, so every request makes progress; a request therefore costs at most its budget
 * or one rule (pattern.ts bounds one match at about 70 ms), not both. Lines left come back with the matches
 * found so far and `complete: false`.
 */

export type MatchRequest = {
  id: number;
  /** A rule with `metric` marks a line only where its first capture passes the comparison. */
  rules: MarkingRule[];
  lines: string[];
  budgetMs: number;
};

export type MatchResponse = { id: number; matches: string[][]; complete: boolean };

const MAX_PATTERNS = 256;
const MAX_CACHED_LINES = 10_000;

type Pattern = { compiled: CompiledPattern | null; msPerChar: number };
/** How far a line got through one rule set: the first `tried` rules ran; `found` are those that matched. */
type Progress = { tried: number; found: string[] };

const patterns = new Map<string, Pattern>();
const lineCache = new Map<string, Progress>();

function pattern(source: string): Pattern {
  const hit = patterns.get(source);
  if (hit !== undefined) return hit;
  if (patterns.size >= MAX_PATTERNS) patterns.clear();
  const result = compilePattern(source);
  const entry = { compiled: result.ok ? result.pattern : null, msPerChar: 0 };
  patterns.set(source, entry);
  return entry;
}

function progressOf(key: string): Progress {
  const hit = lineCache.get(key);
  if (hit !== undefined) return hit;
  if (lineCache.size >= MAX_CACHED_LINES) {
    const oldest = lineCache.keys().next().value;
    if (oldest !== undefined) lineCache.delete(oldest);
  }
  const progress = { tried: 0, found: [] };
  lineCache.set(key, progress);
  return progress;
}

const digest = (text: string) => createHash("sha1").update(text).digest("base64");

type Rule = { name: string; pattern: Pattern; metric?: MarkMetric };

/** The characters of `line` a pattern is run on (pattern.ts cuts longer lines; +1 for the cut mark). */
const seenChars = (compiled: CompiledPattern, line: string) => Math.min(line.length, compiled.lineChars) + 1;

/** Whether the rule matched, or null: its estimate overruns the budget and it is left for the next request. */
type Run = (rule: Rule, line: string) => boolean | null;

/** One request's rule runs against its budget; the first always runs, so every request makes progress. */
function budgeted(budgetMs: number, clock: () => number): Run {
  const started = clock();
  let ranOne = false;
  return (rule, line) => {
    const { compiled } = rule.pattern;
    if (compiled === null) return false;
    const chars = seenChars(compiled, line);
    const t0 = clock();
    if (ranOne && t0 - started + rule.pattern.msPerChar * chars > budgetMs) return null;
    const found = compiled.match(line);
    const matched =
      found !== null && (rule.metric === undefined || metricTrips(rule.metric, found.groups[0]));
    rule.pattern.msPerChar = (clock() - t0) / chars;
    ranOne = true;
    return matched;
  };
}

/** Takes the line through its remaining rules while the budget lasts; true when every rule has run. */
function advance(progress: Progress, line: string, rules: readonly Rule[], run: Run): boolean {
  for (const rule of rules.slice(progress.tried)) {
    const matched = run(rule, line);
    if (matched === null) return false;
    if (matched) progress.found.push(rule.name);
    progress.tried += 1;
  }
  return true;
}

export function matchLines(
  request: MatchRequest,
  clock: () => number = () => performance.now(),
): MatchResponse {
  const run = budgeted(request.budgetMs, clock);
  const rules = request.rules.map((rule) => ({ ...rule, pattern: pattern(rule.logPattern) }));
  const rulesKey = digest(JSON.stringify(request.rules));
  const matches: string[][] = [];
  let complete = true;
  for (const line of request.lines) {
    const key = `${rulesKey}:${digest(line)}`;
    // Past the budget, lines get only what earlier requests found for them.
    const progress = complete ? progressOf(key) : lineCache.get(key);
    if (complete && progress !== undefined) complete = advance(progress, line, rules, run);
    matches.push(progress ? [...progress.found] : []);
  }
  return { id: request.id, matches, complete };
}

parentPort?.on("message", (request: MatchRequest) => {
  parentPort?.postMessage(matchLines(request));
});
