import { type CompiledLogRule, compileLogRule } from "./compile-rule";
import type { LogMonitoringRule } from "./log-rule.schema";

/** Test helpers (imported by *.test.ts only). */

export type FakeClock = { now: () => number; advance: (seconds: number) => void; at: () => number };

/** Starts away from 0 so no code path can get away with treating 0 as "unset". */
export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let t = start;
  return {
    now: () => t,
    at: () => t,
    advance: (seconds) => {
      t += seconds * 1000;
    },
  };
}

export function compiled(rule: Partial<LogMonitoringRule> & { logPattern: string }): CompiledLogRule {
  const result = compileLogRule({ name: "rule", ...rule });
  if (!result.ok) throw new Error(result.reason);
  return result.rule;
}
