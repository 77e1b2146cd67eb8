import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/**
 * `npm run bench:tv` knobs (defaults: the run):
 *   --nodes 256            the bench:k8s job: nodes × 8 ranks (256 → 2,048 ranks)
 *   --viewers 200          concurrent TV viewers (SSE), split between the jobs and cluster views
 *   --changes 20           changes timed on the viewers (alternately a quota change and a node fault)
 *   --change-gap-s 3       pause between one change reaching every viewer and the next change
 *   --tab-minutes 60       one Chromium tab on /tv/jobs measured this long after a 1 minute warm-up; 0 skips it
 *   --quiet-s 10           viewers connected and idle before the first change (frames per second measured)
 */
export type TvBenchConfig = {
  nodes: number;
  viewers: number;
  changes: number;
  changeGapMs: number;
  tabMinutes: number;
  quietMs: number;
};

const DEFAULTS = {
  nodes: "256",
  viewers: "200",
  changes: "20",
  "change-gap-s": "3",
  "tab-minutes": "60",
  "quiet-s": "10",
} as const;

type Flag = keyof typeof DEFAULTS;

export function parseTvConfig(argv: string[]): TvBenchConfig {
  const { values } = parseArgs({ args: argv, options: stringOptions<Flag>(DEFAULTS) });
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    nodes: int("nodes", 1),
    viewers: int("viewers", 1),
    changes: int("changes", 1),
    changeGapMs: int("change-gap-s", 0) * 1000,
    tabMinutes: int("tab-minutes", 0),
    quietMs: int("quiet-s", 0) * 1000,
  };
}
