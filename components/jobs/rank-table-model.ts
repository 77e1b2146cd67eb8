import { stallThresholdMs } from "@/server/domain/console/progress-stall";
import type { RankView } from "@/server/domain/jobs/view-model";
import { formatDuration } from "./format";
import { HEALTH_SEVERITY, HEALTH_STYLE } from "./health-style";

/**
 * Sorting and filtering for the rank table, kept pure so they are unit-tested and cheap: one O(n log n)
 * sort per update with a comparator that never allocates.
 *
 * The sort is total and stable: ties on the chosen column (and nulls, which sort last in both directions)
 * are broken by rank ascending, so rows never jump between 1 Hz updates when their values are equal.
 */

export const SORT_KEYS = [
  "rank",
  "node",
  "pod",
  "health",
  "step",
  "loss",
  "throughput",
  "age",
  "restarts",
  "straggler",
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDirection = "ascending" | "descending";
export type RankSort = { key: SortKey; direction: SortDirection };

export const DEFAULT_SORT: RankSort = { key: "rank", direction: "ascending" };

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

type SortValue = number | string | null;

function sortValue(rank: RankView, key: SortKey): SortValue {
  switch (key) {
    case "health":
      return HEALTH_SEVERITY[rank.health];
    case "straggler":
      return rank.straggler ? 0 : 1;
    case "loss":
    case "throughput":
      return rank[key] === null || Number.isNaN(rank[key]) ? null : rank[key];
    case "age":
      return ageFrom(rank);
    default:
      return rank[key];
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === "string" && typeof b === "string") return collator.compare(a, b);
  if (typeof a === "number" && typeof b === "number") return a - b;
  return 0;
}

/** Nulls after values whatever the direction; two nulls tie. */
function compareNullsLast(a: SortValue, b: SortValue, sign: number): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return sign * compareValues(a, b);
}

/** Returns a new array sorted by `sort`; see the file header for the tie and null rules. */
export function sortRanks(ranks: readonly RankView[], sort: RankSort): RankView[] {
  const sign = sort.direction === "ascending" ? 1 : -1;
  return [...ranks].sort((x, y) => {
    const a = sortValue(x, sort.key);
    const b = sortValue(y, sort.key);
    return compareNullsLast(a, b, sign) || x.rank - y.rank;
  });
}

/**
 * Ranks whose number, node, pod or health contains `query` (case-insensitive; surrounding spaces
 * ignored). "rank 12" style input is not parsed: the box is a substring filter, as its label says.
 */
export function filterRanks(ranks: readonly RankView[], query: string): readonly RankView[] {
  const needle = query.trim().toLowerCase();
  if (needle === "") return ranks;
  return ranks.filter(
    (rank) =>
      String(rank.rank).includes(needle) ||
      (rank.node ?? "").toLowerCase().includes(needle) ||
      rank.pod.toLowerCase().includes(needle) ||
      HEALTH_STYLE[rank.health].label.toLowerCase().includes(needle),
  );
}

/**
 * The instant the Age column counts from (epoch ms): the rank's last progress line, or its last line when it
 * has printed no progress (a trainer whose lines are not progress, or one still starting); null: neither.
 */
export function ageFrom(rank: Pick<RankView, "lastProgressAt" | "lastLineAt">): number | null {
  return rank.lastProgressAt ?? rank.lastLineAt;
}

/** How long a rank has gone without progress, in the Health column: "7 s", "2 min 5 s" (whole seconds). */
export function formatNoProgress(ms: number): string {
  return ms < 60_000 ? `${Math.max(0, Math.floor(ms / 1000))} s` : formatDuration(ms);
}

/**
 * The Health column's (and the topology tooltip's) words for a rank: its health's label, and for a rank with
 * no progress for past its threshold "No progress for 7 s", counting up with `now` between live updates.
 * Never less than the threshold: the server judged the rank stalled with its clock, and the page's 1 Hz
 * clock may be up to a second behind when the update lands.
 */
export function healthText(
  rank: Pick<RankView, "health" | "lastProgressAt" | "progressIntervalMs">,
  now: number,
): string {
  const { label } = HEALTH_STYLE[rank.health];
  if (rank.health !== "stalled" || rank.lastProgressAt == null) return label;
  const threshold = stallThresholdMs(rank.progressIntervalMs ?? 0);
  return `${label} for ${formatNoProgress(Math.max(now - rank.lastProgressAt, threshold))}`;
}

/** Clicking a header: a new column sorts ascending (most severe first for health); the same column flips. */
export function nextSort(current: RankSort, key: SortKey): RankSort {
  if (current.key !== key) return { key, direction: "ascending" };
  return { key, direction: current.direction === "ascending" ? "descending" : "ascending" };
}

/** "heartbeat: HEALTHY, loss: SLOW", rules in name order. */
export function formatRuleStates(ruleStates: Readonly<Record<string, string>>): string {
  return Object.keys(ruleStates)
    .sort()
    .map((rule) => `${rule}: ${ruleStates[rule]}`)
    .join(", ");
}
