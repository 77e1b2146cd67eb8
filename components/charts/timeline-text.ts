import { formatClock, formatDuration, formatRankList } from "@/components/jobs/format";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { ACTION_LABEL } from "./restart-timeline-model";

function podList(pods: readonly string[]): string {
  if (pods.length === 0) return "";
  const names = pods.length > 3 ? `${pods.slice(0, 3).join(", ")}, …` : pods.join(", ");
  return ` (${pods.length === 1 ? "pod" : "pods"} ${names})`;
}

/** Where the fault was: "ranks 0–7 on node-3 (pods w-0)". */
export function faultScope(entry: TimelineEntry): string {
  const noun = entry.ranks.length === 1 ? "rank" : "ranks";
  const ranks = entry.ranks.length > 0 ? `${noun} ${formatRankList(entry.ranks)}` : "the job";
  const node = entry.node ? ` on ${entry.node}` : "";
  return `${ranks}${node}${podList(entry.pods)}`;
}

/** How the recovery went: "recovered in 850 ms", "recovering for 3.2 s", "failed". */
export function recoveryText(entry: TimelineEntry, now: number): string {
  switch (entry.outcome) {
    case "recovered":
      return `recovered in ${formatDuration(entry.recoveryMs)}`;
    case "pending":
      return `recovering for ${formatDuration(now - entry.detectedAt)}`;
    case "failed":
      return "recovery failed";
    default:
      return entry.outcome satisfies never;
  }
}

/** One sentence per fault, for the accessible list. */
export function entrySentence(entry: TimelineEntry, now: number): string {
  const policy = entry.policy ? ` (under ${entry.policy})` : "";
  return `${formatClock(entry.faultAt)}: ${entry.reason} in ${faultScope(entry)}; ${ACTION_LABEL[entry.action]}${policy}; detected in ${formatDuration(entry.detectionMs)}, ${recoveryText(entry, now)}.`;
}
