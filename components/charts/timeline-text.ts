import { formatClock, formatDuration, formatRankList } from "@/components/jobs/format";
import type { FaultLoss } from "@/server/domain/goodput";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { ACTION_LABEL } from "./restart-timeline-model";

/** "pod w-0", "pods a, b, c, …". */
function podNames(pods: readonly string[]): string {
  const names = pods.length > 3 ? `${pods.slice(0, 3).join(", ")}, …` : pods.join(", ");
  return `${pods.length === 1 ? "pod" : "pods"} ${names}`;
}

/**
 * Where the fault was: "ranks 0–7 on node-3 (pods w-0)"; "pod w-0 on node-3" when its ranks are not known
 * (an agent that named none); "the job" with neither.
 */
export function faultScope(entry: TimelineEntry): string {
  const node = entry.node ? ` on ${entry.node}` : "";
  if (entry.ranks.length === 0 && entry.pods.length > 0) return `${podNames(entry.pods)}${node}`;
  const noun = entry.ranks.length === 1 ? "rank" : "ranks";
  const ranks = entry.ranks.length > 0 ? `${noun} ${formatRankList(entry.ranks)}` : "the job";
  const pods = entry.pods.length > 0 ? ` (${podNames(entry.pods)})` : "";
  return `${ranks}${node}${pods}`;
}

/** " after a 10 s back-off wait" where the restart waited one out; "" otherwise. */
export function waitText(entry: TimelineEntry): string {
  return (entry.waitMs ?? 0) > 0 ? ` after a ${formatDuration(entry.waitMs ?? 0)} back-off wait` : "";
}

/**
 * How the recovery went: "recovered in 850 ms" (a back-off's wait said apart: "recovered in 850 ms after a
 * 10 s back-off wait"), "recovering for 3.2 s", "failed".
 */
export function recoveryText(entry: TimelineEntry, now: number): string {
  switch (entry.outcome) {
    case "recovered":
      return `recovered in ${formatDuration(entry.recoveryMs)}${waitText(entry)}`;
    case "pending":
      return `recovering for ${formatDuration(now - entry.detectedAt)}`;
    case "failed":
      return "recovery failed";
    default:
      return entry.outcome satisfies never;
  }
}

function stepsText(steps: number | null): string {
  if (steps === null) return "";
  if (steps === 0) return ", no step lost";
  return ` and ${steps.toLocaleString("en-US")} ${steps === 1 ? "step" : "steps"}`;
}

/**
 * What the fault cost the training (server/domain/goodput): "lost 4.2 s and 3 steps" (last progress →
 * training back at that step), "training not back for 12 s" while it is not, or on a row without progress
 * "lost 1.2 s (control-plane time: no training progress recorded)".
 */
export function lossText(loss: FaultLoss): string {
  const lost = formatDuration(loss.lostMs);
  if (loss.basis === "control-plane")
    return `lost ${lost} (control-plane time: no training progress recorded)`;
  if (loss.open) return `training not back for ${lost}`;
  return `lost ${lost}${stepsText(loss.lostSteps)}`;
}

/**
 * The operator's node fault message (recovery.ts: describeFault, kept after the remediation message once
 * recovered): the signal's source and reason in parentheses.
 */
const NODE_SIGNAL = /Found unhealthy node \S+ \((.+?)\)(?:; back-off .*)?$/;

/**
 * What the fault was: its reason, and for a node fault said by a node signal its source and reason
 * ("NodeFault (NVSentinel: GpuMemWatch — …)"); HyperPod's label is the plain NodeFault.
 */
export function faultCause(entry: TimelineEntry): string {
  const signal = entry.reason === "NodeFault" ? NODE_SIGNAL.exec(entry.message)?.[1] : undefined;
  return signal ? `${entry.reason} (${signal})` : entry.reason;
}

/** One sentence per fault, for the accessible list. */
export function entrySentence(entry: TimelineEntry, now: number, loss?: FaultLoss): string {
  const policy = entry.policy ? ` (under ${entry.policy})` : "";
  const cost = loss ? `; ${lossText(loss)}` : "";
  const times = (entry.count ?? 1) > 1 ? ` (${entry.count} times in a row, the last shown)` : "";
  return `${formatClock(entry.faultAt)}: ${faultCause(entry)}${times} in ${faultScope(entry)}; ${ACTION_LABEL[entry.action]}${policy}; detected in ${formatDuration(entry.detectionMs)}, ${recoveryText(entry, now)}${cost}.`;
}
