import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import { dryRun } from "@/server/domain/policy/dry-run";
import { parsePolicyYaml } from "@/server/domain/policy/policy-yaml";
import { lineTimestamps } from "@/server/domain/policy/timestamps";
import type { PolicyTemplate } from "@/server/domain/policy/types";

/**
 * A shipped policy template's sample lines as something a real agent can run: the template's rules (its
 * YAML parsed as the console parses it) and when a worker prints each line. A line's time is the one it
 * prints, else 1 s after the line before (the dry-run's reading). Templates with a time window (a hang or
 * start cut-off) are played faster: every window's seconds, and the gaps between lines, are divided by one
 * factor, so a 300 s window runs as a few seconds; nothing else of a rule changes (its pattern never).
 * The factor keeps the smallest window at MIN_WINDOW_S or more, and leaves MIN_MARGIN_MS between the last
 * quiet line and the first window that could then run out (its deadline, from the dry-run), so the quiet
 * check can wait for a slow reader and still end before a hang that only comes once the output stops.
 * Templates without a window print their lines LINE_GAP_MS apart.
 */

export type SampleKind = "fires" | "quiet";

export type TemplateCase = {
  template: string;
  kind: SampleKind;
  rules: LogMonitoringRule[];
  /** Each line with when the worker prints it (ms after it starts). */
  schedule: { atMs: number; line: string }[];
  /** How the windows were shortened ("StepHang 300→4 s"), null when there is no window. */
  scaled: string | null;
  /** How long after the worker starts a fault may still come (the last line, the longest window, slack). */
  waitMs: number;
};

const WINDOW_FIELDS = ["expectedRecurringFrequencyInSeconds", "expectedStartCutOffInSeconds"] as const;
export const MIN_WINDOW_S = 4;
export const MIN_MARGIN_MS = 4000;
export const LINE_GAP_MS = 100;
const DEFAULT_GAP_MS = 1000;
const SLACK_MS = 8000;

export function templateRules(template: PolicyTemplate): LogMonitoringRule[] {
  const parsed = parsePolicyYaml(template.yaml);
  if (!parsed.ok) throw new Error(`template ${template.id} does not parse: ${JSON.stringify(parsed.errors)}`);
  return parsed.runPolicy.logMonitoringConfiguration ?? [];
}

/** Sample time of each line (ms after the first), as the dry-run reads it. */
export function sampleOffsets(lines: readonly string[]): number[] {
  const stamps = lineTimestamps(lines, new Date().getUTCFullYear());
  const first = stamps.find((stamp) => stamp !== null) ?? 0;
  let previous = first;
  return stamps.map((stamp, index) => {
    const at = Math.max(previous, stamp ?? (index === 0 ? first : previous + DEFAULT_GAP_MS));
    previous = at;
    return at - first;
  });
}

const windowsOf = (rule: LogMonitoringRule): number[] =>
  WINDOW_FIELDS.flatMap((field) => (rule[field] === undefined ? [] : [rule[field]]));

/** Time from the last quiet line to the first window that could run out after it (Infinity: none would). */
function quietMarginMs(template: PolicyTemplate): number {
  const parsed = parsePolicyYaml(template.yaml);
  if (!parsed.ok) return Number.POSITIVE_INFINITY;
  const result = dryRun({ runPolicy: parsed.runPolicy, logText: template.samples.quiet.join("\n") });
  return result.fault === null ? Number.POSITIVE_INFINITY : result.fault.at - result.outputEndedAt;
}

/** Sample seconds per real second (1: played as written, no window to shorten). */
function speedUp(template: PolicyTemplate, rules: readonly LogMonitoringRule[]): number {
  const windows = rules.flatMap(windowsOf).filter((seconds) => seconds > 0);
  if (windows.length === 0) return 1;
  const shortest = Math.min(...windows);
  const byWindow = shortest / MIN_WINDOW_S;
  const margin = quietMarginMs(template);
  // A quiet sample that faults before its last line fails its check anyway: no margin to keep then.
  const byMargin = margin > 0 ? margin / MIN_MARGIN_MS : byWindow;
  return Math.max(1, Math.min(byWindow, byMargin));
}

function scaleRule(rule: LogMonitoringRule, factor: number): LogMonitoringRule {
  const scaled = { ...rule };
  for (const field of WINDOW_FIELDS) {
    const seconds = rule[field];
    if (seconds !== undefined && seconds > 0) scaled[field] = Math.max(1, Math.round(seconds / factor));
  }
  return scaled;
}

function describeScaling(rules: readonly LogMonitoringRule[], scaled: readonly LogMonitoringRule[]) {
  const parts = rules.flatMap((rule, index) =>
    WINDOW_FIELDS.flatMap((field) => {
      const from = rule[field];
      const to = scaled[index]?.[field];
      return from === undefined || from === to ? [] : [`${rule.name} ${from}→${to} s`];
    }),
  );
  return parts.length === 0 ? null : parts.join(", ");
}

export function templateCases(template: PolicyTemplate): TemplateCase[] {
  const original = templateRules(template);
  const factor = speedUp(template, original);
  const windowed = original.some((rule) => windowsOf(rule).length > 0);
  const rules = windowed ? original.map((rule) => scaleRule(rule, factor)) : original;
  const longestWindowMs = Math.max(0, ...rules.flatMap(windowsOf)) * 1000;
  return (["fires", "quiet"] as const).map((kind) => {
    const lines = template.samples[kind];
    const offsets = windowed ? sampleOffsets(lines).map((ms) => Math.round(ms / factor)) : null;
    const schedule = lines.map((line, index) => ({ atMs: offsets?.[index] ?? index * LINE_GAP_MS, line }));
    const lastMs = schedule.at(-1)?.atMs ?? 0;
    return {
      template: template.id,
      kind,
      rules,
      schedule,
      scaled: describeScaling(original, rules),
      waitMs: lastMs + longestWindowMs + SLACK_MS,
    };
  });
}

/**
 * The worker both agents run (`python3 worker.py <schedule.json> <done file>`): writes `<done file>.started`
 * as it starts, prints each line at its time (flushed), writes the done file after the last one, then idles until its agent is gone (its parent
 * changes: hyperpodrun starts workers in their own session, so killing the agent's group misses them) or
 * for at most 10 minutes.
 */
export const TEMPLATE_WORKER_PY = `
import json, os, sys, time

schedule = json.load(open(sys.argv[1], encoding="utf-8"))
parent = os.getppid()
started = time.monotonic()
open(sys.argv[2] + ".started", "w").close()
for entry in schedule:
    delay = started + entry["atMs"] / 1000 - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    print(entry["line"], flush=True)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write("done")
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
while os.getppid() == parent and time.monotonic() - started < 600:
    time.sleep(0.2)
`;
