import type { ClusterNode } from "@/server/cluster/types";
import { isNodeHealthy } from "@/server/cluster/types";
import {
  float,
  jobStragglers,
  missingHealth,
  RANKS_UNREPORTED_NOTE,
  ranksPerPod,
  ranksUnreported,
  reportedRankHealth,
} from "@/server/domain/console/job-ranks";
import { progressAtMs } from "@/server/domain/console/progress-stall";
import { timelineTotals } from "@/server/domain/console/timeline";
import type {
  JobTotals,
  NodeView,
  PodTile,
  RankView,
  ShadowVerdictEntry,
  TimelineEntry,
  TopologyView,
} from "@/server/domain/jobs/view-model";
import type { LiveJob, LivePod, ShadowVerdictRecord } from "@/server/domain/operator-api/contract";
import { entryProgress, type RestartEventRow } from "@/server/store/restart-events/queries";

/**
 * Turns what the operator sees (live state) and what Postgres recorded (restart events) into the console's
 * view model (lib/jobs/view-model.ts). Pure: the jobs router and the live stream both call it.
 */

type AgentRank = LivePod["ranks"][number];

function rankView(
  pod: LivePod,
  rank: AgentRank,
  opts: { recovering: boolean; straggler: boolean; now: number },
): RankView {
  // One object per rank, built whole (a 16,384-rank page builds 16,384 of them four times a second).
  return {
    rank: rank.rank,
    localRank: rank.local_rank,
    pod: pod.name,
    node: pod.node,
    state: rank.state,
    pid: rank.pid,
    step: rank.step,
    loss: float(rank.loss),
    throughput: float(rank.throughput),
    lastLine: rank.last_line,
    lastLineAt: rank.last_line_at ? Date.parse(rank.last_line_at) : null,
    restarts: rank.restarts,
    ruleStates: rank.rule_states,
    straggler: opts.straggler,
    suspect: rank.suspect ?? false,
    // Left out, not undefined, where the agent does not say: an undefined field costs the wire (superjson)
    // an entry of its own per rank.
    ...(rank.log_watched === undefined ? {} : { logWatched: rank.log_watched }),
    lastProgressAt: progressAtMs(rank.last_progress_at),
    progressIntervalMs: rank.progress_interval_ms ?? null,
    health: reportedRankHealth(pod, rank, opts),
  };
}

function missingState(pod: LivePod): RankView["state"] {
  if (!ranksUnreported(pod)) return "unknown";
  if (pod.agentState === "running") return "running";
  return pod.agentState === "completed" ? "exited" : "unknown";
}

/** Ranks the agent did not report (pod missing, agent unreachable): placeholders at their global rank. */
function missingRanks(
  pod: LivePod,
  ranksPerPod: number,
  state: { recovering: boolean; jobFailed: boolean },
): RankView[] {
  const reported = new Set(pod.ranks.map((rank) => rank.local_rank));
  const missing: RankView[] = [];
  for (let localRank = 0; localRank < ranksPerPod; localRank += 1) {
    if (reported.has(localRank)) continue;
    missing.push({
      rank: pod.groupRank * ranksPerPod + localRank,
      localRank,
      pod: pod.name,
      node: pod.node,
      health: missingHealth(pod, state.recovering, state.jobFailed),
      state: missingState(pod),
      pid: null,
      step: null,
      loss: null,
      throughput: null,
      lastLine: null,
      lastLineAt: null,
      restarts: 0,
      ruleStates: {},
      straggler: false,
    });
  }
  return missing;
}

/**
 * After a restart, a rank that has not printed a step yet is still coming back: the rank(s) the latest
 * fault was about show "faulted" until then, the others "restarting". (With no fault yet, a rank without
 * a step is "waiting": the job's first start.)
 */
function sinceLatestFault(rank: RankView, culprits: ReadonlySet<number> | null): RankView {
  if (!culprits || rank.step !== null || rank.health === "faulted") return rank;
  return { ...rank, health: culprits.has(rank.rank) ? "faulted" : "restarting" };
}

/** What a pod of a finished job shows instead of Missing once its pod was cleaned up (cleanPodPolicy). */
const FINISHED_POD_PHASE: Readonly<Record<string, string>> = { Succeeded: "Completed", Failed: "Stopped" };

/**
 * A finished job's ranks (Succeeded, Failed) no longer run: "finished", not "waiting" for pods that were
 * cleaned up, nor "faulted" all of them; under Failed the ranks of the latest fault, and a rank its agent
 * reported faulted, stay faulted. `placeholder`: a rank no agent reported (its pod is gone).
 */
function finishedRank(
  rank: RankView,
  job: { phase: string; culprits: ReadonlySet<number> | null; placeholder: boolean },
): RankView {
  const podPhase = FINISHED_POD_PHASE[job.phase];
  if (!podPhase) return rank;
  const faulted = job.culprits?.has(rank.rank) || (!job.placeholder && rank.health === "faulted");
  if (job.phase === "Failed" && faulted) return { ...rank, health: "faulted" };
  return { ...rank, health: "finished", state: job.placeholder ? podPhase.toLowerCase() : rank.state };
}

/** The list kept under `key`, made empty the first time. */
function listIn<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

/** `now` (epoch ms) dates the ranks' progress ages; by default when the operator last observed the job. */
export function topologyView(
  live: LiveJob,
  clusterNodes: readonly ClusterNode[],
  latestFault: { ranks: readonly number[] } | null = null,
  now: number = live.updatedAt,
): TopologyView {
  const culprits = latestFault ? new Set(latestFault.ranks) : null;
  const recovering = live.recovery !== null;
  const perPod = ranksPerPod(live);
  const stragglers = jobStragglers(live);
  const ranks = live.pods
    .flatMap((pod) => [
      ...pod.ranks.map((rank) =>
        finishedRank(
          sinceLatestFault(
            rankView(pod, rank, { recovering, straggler: stragglers.has(rank.rank), now }),
            culprits,
          ),
          { phase: live.phase, culprits, placeholder: false },
        ),
      ),
      ...missingRanks(pod, perPod, { recovering, jobFailed: live.phase === "Failed" }).map((rank) =>
        finishedRank(rank, { phase: live.phase, culprits, placeholder: true }),
      ),
    ])
    .sort((a, b) => a.rank - b.rank);
  const ranksOfPod = new Map<string, number[]>();
  for (const rank of ranks) listIn(ranksOfPod, rank.pod).push(rank.rank);
  const pods: PodTile[] = live.pods.map((pod) => ({
    name: pod.name,
    node: pod.node,
    phase: pod.phase === "Missing" ? (FINISHED_POD_PHASE[live.phase] ?? pod.phase) : pod.phase,
    agentState: pod.agentState,
    ranks: ranksOfPod.get(pod.name) ?? [],
  }));
  const byNode = new Map(clusterNodes.map((node) => [node.name, node]));
  // Each node's pods in one pass (a 16,384-rank job has 2,048 of each).
  const podsOfNode = new Map<string, string[]>();
  for (const pod of pods) if (pod.node !== null) listIn(podsOfNode, pod.node).push(pod.name);
  const nodeNames = [...podsOfNode.keys()].sort();
  const nodes: NodeView[] = nodeNames.map((name) => {
    const node = byNode.get(name);
    return {
      name,
      health: node?.health ?? "Unknown",
      ready: node?.ready ?? false,
      healthy: node ? isNodeHealthy(node) : false,
      gpus: node?.gpus ?? 0,
      gpusUsed: 0,
      pods: podsOfNode.get(name) ?? [],
    };
  });
  const note = live.pods.some(ranksUnreported) ? { note: RANKS_UNREPORTED_NOTE } : {};
  return { nodes, pods, ranks, ...note };
}

const ACTIONS = new Set(["PLR", "POD_REPLACEMENT", "JLR", "FAIL"]);
const OUTCOMES = new Set(["pending", "recovered", "failed"]);

/** A back-off's wait kept apart from the recovery (recoveryMs); how many failures the row stands for. */
function waitAndCount(
  row: RestartEventRow,
  at: { detectedAt: number; recoveredAt: number | null },
): Pick<TimelineEntry, "recoveryMs" | "waitMs" | "count"> {
  const waitMs = row.waitMs ?? 0;
  const recoveryMs = at.recoveredAt === null ? null : Math.max(0, at.recoveredAt - at.detectedAt - waitMs);
  return { recoveryMs, waitMs, count: row.count ?? 1 };
}

export function timelineEntries(rows: readonly RestartEventRow[]): TimelineEntry[] {
  return rows.map((row) => {
    const faultAt = row.faultAt.getTime();
    const detectedAt = row.detectedAt.getTime();
    const recoveredAt = row.recoveredAt?.getTime() ?? null;
    return {
      id: row.id,
      reason: row.faultReason,
      message: row.message,
      action: (ACTIONS.has(row.action) ? row.action : "FAIL") as TimelineEntry["action"],
      outcome: (OUTCOMES.has(row.outcome) ? row.outcome : "pending") as TimelineEntry["outcome"],
      ranks: row.ranks,
      pods: row.pods,
      node: row.node,
      faultAt,
      detectedAt,
      recoveredAt,
      detectionMs: Math.max(0, detectedAt - faultAt),
      ...waitAndCount(row, { detectedAt, recoveredAt }),
      policy: row.policy ?? null,
      ...entryProgress(row.progress),
    };
  });
}

/** The shadow's verdicts as timeline entries of their own kind, oldest first like the restarts. */
export function shadowEntries(verdicts: readonly ShadowVerdictRecord[]): ShadowVerdictEntry[] {
  return verdicts
    .map((verdict) => {
      const at = Date.parse(verdict.at);
      return {
        id: verdict.id,
        at,
        pod: verdict.pod,
        rank: verdict.rank,
        rule: verdict.rule,
        state: verdict.state,
        reason: verdict.reason,
        line: verdict.line,
        wouldAction: verdict.wouldAction,
        message: `would have ${verdict.wouldAction}: rule ${verdict.rule} ${verdict.state} at ${new Date(at).toISOString().slice(11, 19)}Z`,
        policy: verdict.policy,
      };
    })
    .sort((a, b) => a.at - b.at);
}

export function jobTotalsView(live: LiveJob, timeline: readonly TimelineEntry[], now: number): JobTotals {
  return timelineTotals([...timeline], { startedAt: live.createdAt || null, now });
}
