import { createHash } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { type CompiledPattern, compilePattern } from "@/server/domain/log-rules/pattern";

/**
 * The worker thread behind log-matcher.ts: runs the rules' logPatterns over the lines of one logs-view
 * request within its time budget, so user patterns never run on the console's event loop. Compiled
 * patterns and each line's matches are cached (the logs view asks for mostly the same tail every 2 s).
 * Lines left when the budget runs out come back with no matches and `complete: false`.
 */

export type MatchRequest = {
  id: number;
  rules: { name: string; logPattern: string }[];
  lines: string[];
  budgetMs: number;
};

export type MatchResponse = { id: number; matches: string[][]; complete: boolean };

const MAX_PATTERNS = 256;
const MAX_CACHED_LINES = 10_000;

const patterns = new Map<string, CompiledPattern | null>();
const lineCache = new Map<string, string[]>();

function compiled(source: string): CompiledPattern | null {
  const hit = patterns.get(source);
  if (hit !== undefined) return hit;
  if (patterns.size >= MAX_PATTERNS) patterns.clear();
  const result = compilePattern(source);
  const pattern = result.ok ? result.pattern : null;
  patterns.set(source, pattern);
  return pattern;
}

function remember(key: string, matches: string[]): void {
  if (lineCache.size >= MAX_CACHED_LINES) {
    const oldest = lineCache.keys().next().value;
    if (oldest !== undefined) lineCache.delete(oldest);
  }
  lineCache.set(key, matches);
}

const digest = (text: string) => createHash("sha1").update(text).digest("base64");

type Rule = { name: string; pattern: CompiledPattern | null };

/** The rules matching `line`, or null if the budget ran out before every rule was tried. */
function matchOne(rules: readonly Rule[], line: string, overBudget: () => boolean): string[] | null {
  const found: string[] = [];
  for (const rule of rules) {
    if (overBudget()) return null;
    if (rule.pattern?.match(line)) found.push(rule.name);
  }
  return found;
}

export function matchLines(
  request: MatchRequest,
  clock: () => number = () => performance.now(),
): MatchResponse {
  const started = clock();
  const overBudget = () => clock() - started > request.budgetMs;
  const rules = request.rules.map((rule) => ({ name: rule.name, pattern: compiled(rule.logPattern) }));
  const rulesKey = digest(JSON.stringify(request.rules));
  const matches: string[][] = [];
  for (const line of request.lines) {
    const key = `${rulesKey}:${digest(line)}`;
    const found = lineCache.get(key) ?? matchOne(rules, line, overBudget);
    if (found === null) break;
    remember(key, found);
    matches.push(found);
  }
  const complete = matches.length === request.lines.length;
  while (matches.length < request.lines.length) matches.push([]);
  return { id: request.id, matches, complete };
}

parentPort?.on("message", (request: MatchRequest) => {
  parentPort?.postMessage(matchLines(request));
});
