import { parseArgs } from "node:util";
import { TV_VIEWS, type TvView } from "@/server/domain/access/share";
import { integerReader, stringOptions } from "../lib/flags";
import type { ChangeKind } from "./changes";

/**
 * `npm run bench:tv` knobs (defaults: the run):
 *   --nodes 256            the bench:k8s job: nodes × 8 ranks (256 → 2,048 ranks)
 *   --viewers 200          concurrent TV viewers (SSE), split between the jobs and cluster views
 *   --changes 20           changes timed on the viewers (alternately a quota change and a node fault)
 *   --change-gap-s 3       pause between one change reaching every viewer and the next change
 *   --tab-minutes 60       one Chromium tab on /tv/jobs measured this long after a 1 minute warm-up; 0 skips it
 *   --quiet-s 10           viewers connected and idle before the first change
 *   --tab-view jobs        the view the tab opens
 *   --kinds quota,fault    the kinds of change made, in turn (bench/tv/changes.ts)
 *   --faults 10            node faults at most: the demo job's restartPolicy makes the 11th within the hour a
 *                          full job restart (numRestartBeforeFullJobRestart 10), minutes at 2,048 ranks; then
 *                          the changes go on as quota changes
 */
export type TvBenchConfig = {
  nodes: number;
  viewers: number;
  changes: number;
  changeGapMs: number;
  tabMinutes: number;
  quietMs: number;
  tabView: TvView;
  kinds: ChangeKind[];
  maxFaults: number;
};

const KINDS = ["quota", "fault"] as const satisfies readonly ChangeKind[];

function oneOf<T extends string>(flag: string, allowed: readonly T[], text: string): T {
  if (!(allowed as readonly string[]).includes(text))
    throw new Error(`--${flag}: expected one of ${allowed.join(", ")}, got ${text}`);
  return text as T;
}

const DEFAULTS = {
  nodes: "256",
  viewers: "200",
  changes: "20",
  "change-gap-s": "3",
  "tab-minutes": "60",
  "quiet-s": "10",
  faults: "10",
} as const;

type Flag = keyof typeof DEFAULTS;

export function parseTvConfig(argv: string[]): TvBenchConfig {
  const options = {
    ...stringOptions<Flag>(DEFAULTS),
    "tab-view": { type: "string" as const, default: "jobs" },
    kinds: { type: "string" as const, default: KINDS.join(",") },
  };
  const { values } = parseArgs({ args: argv, options });
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    nodes: int("nodes", 1),
    viewers: int("viewers", 1),
    changes: int("changes", 1),
    changeGapMs: int("change-gap-s", 0) * 1000,
    tabMinutes: int("tab-minutes", 0),
    quietMs: int("quiet-s", 0) * 1000,
    maxFaults: int("faults", 0),
    tabView: oneOf("tab-view", TV_VIEWS, values["tab-view"]),
    kinds: values.kinds.split(",").map((kind) => oneOf("kinds", KINDS, kind.trim())),
  };
}
