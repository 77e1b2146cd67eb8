import { MAX_LOG_RULES } from "@/server/domain/job-spec/run-policy.schema";

/**
 * The costliest rule set the validator accepts that we know of (issue 16 item 6), for the adversarial test
 * and bench/abuse/rules.ts: MAX_LOG_RULES rules whose logPattern `(.*a){64}` (64 copies, the repeat bound)
 * matches a line of "a" with captures, and whose stopPattern `(.*a){63}x` never matches it; both are
 * tried on every line. One match of either costs about 70 ms on a line of "a" (pattern.ts cuts the line to
 * MATCH_WORK / instructions characters), so a line costs about 4.5 s unbudgeted.
 */
export const WORST_ACCEPTED_RULES = Array.from({ length: MAX_LOG_RULES }, (_, i) => ({
  name: `Costly${i}`,
  logPattern: "(.*a){64}",
  stopPattern: "(.*a){63}x",
  metricThreshold: 1,
  operator: "gt" as const,
}));

/** The line length. */
export const LONG_LINE_CHARS = 100_000;
