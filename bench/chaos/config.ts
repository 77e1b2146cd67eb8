import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/**
 * The soak's knobs:
 *   --minutes 10          how long faults are injected (the default; shorter for a quick look)
 *   --fault-every-s 8     a random fault (crash, hang, NaN loss, failed node) every this many seconds
 *   --settle-s 60         at the end, how long to wait for every restart in flight to finish
 */
export type ChaosConfig = { durationMs: number; faultEveryMs: number; settleMs: number };

const DEFAULTS = { minutes: "10", "fault-every-s": "8", "settle-s": "60" } as const;
type Flag = keyof typeof DEFAULTS;

export function parseConfig(argv: string[]): ChaosConfig {
  const { values } = parseArgs({ args: argv, options: stringOptions<Flag>(DEFAULTS) });
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    durationMs: int("minutes", 1) * 60_000,
    faultEveryMs: int("fault-every-s", 1) * 1000,
    settleMs: int("settle-s", 5) * 1000,
  };
}
