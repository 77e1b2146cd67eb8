import type { ClusterJob } from "@/server/cluster/types";
import { jobSize } from "@/server/domain/job-spec/job-size";
import { agentFaultRanks } from "@/server/domain/recovery/agent-fault-ranks";
import type { AgentStatus, AgentRank as RankStatus } from "@/server/operator/agent-client";
import type { Observation, ObservedPod } from "./observation";

/**
 * Ranks counted from what runs: the manifest's estimate (`--nproc-per-node` in the command, else the
 * PET_NPROC_PER_NODE the pods get, `nprocPerNode` unless the container sets its own; `effectiveNprocPerNode`
 * in server/domain/job-spec/job-size.ts) until an agent reports its ranks, then the most ranks any pod
 * reports. 1 when neither tells (an "auto"/"cpu" job on CPUs before its agents answer).
 */
export function ranksPerNode(job: ClusterJob, obs?: Observation): number {
  const reported = Math.max(0, ...(obs?.pods ?? []).map((view) => reportedRanks(view).length));
  if (reported > 0) return reported;
  return jobSize(job.object).ranksPerNode ?? 1;
}

/** The per-rank list a pod's agent reports (empty for an agent that reports none, e.g. hyperpodrun). */
export function reportedRanks(view: ObservedPod): RankStatus[] {
  return view.agent.kind === "status" ? (view.agent.status.ranks ?? []) : [];
}

/** Global ranks of a pod: as its agent reports them, else its group's ranks from the ranks per node. */
export function podRanks(view: ObservedPod, perNode: number): number[] {
  const reported = reportedRanks(view);
  if (reported.length > 0) return reported.map((rank) => rank.rank);
  return Array.from({ length: perNode }, (_, local) => view.expected.groupRank * perNode + local);
}

const FAULTED_RULE_STATES = new Set(["FAULTED", "HANGING", "SLOW"]);

function rankFaulted(rank: RankStatus): boolean {
  if (rank.state === "crashed") return true;
  if (rank.state === "exited" && rank.exit_code !== null && rank.exit_code !== 0) return true;
  if (rank.log_watched === false) return false;
  return Object.values(rank.rule_states).some((state) => FAULTED_RULE_STATES.has(state));
}

/** The group rank a pod's agent runs under: the one it reports assigned (/start's `rank`), else the operator's. */
function groupRankOf(view: ObservedPod, status: AgentStatus): number {
  const assigned = status.assigned_rank;
  return assigned !== undefined && /^\d+$/.test(assigned) ? Number(assigned) : view.expected.groupRank;
}

/**
 * Global ranks an agent without a per-rank list (hyperpodrun) names in its fault's reason and message
 * (server/domain/recovery/agent-fault-ranks.ts): local rank r of the pod at group rank g is g × perNode + r,
 * as that agent's rendezvous numbers them. Empty (the record says "pod") when it names none, or a local
 * rank past the ranks per node (the count the mapping needs is then not known).
 */
export function namedRanks(view: ObservedPod, status: AgentStatus, perNode: number): number[] {
  const named = agentFaultRanks(status);
  if (named.kind === "none") return [];
  if (named.kind === "global") return named.ranks;
  if (named.ranks.some((local) => local >= perNode)) return [];
  const offset = groupRankOf(view, status) * perNode;
  return named.ranks.map((local) => offset + local);
}

/**
 * The ranks behind an agent's fault: those it reports crashed, failed or tripping a log rule, all of the
 * pod's ranks when it reports ranks but names none faulted; for an agent without a per-rank list, the
 * ranks its message names, else none (the pod, not ranks that may not have failed).
 */
export function faultedRanks(view: ObservedPod, perNode: number): number[] {
  if (view.agent.kind === "status" && view.agent.status.ranks === undefined)
    return namedRanks(view, view.agent.status, perNode);
  const faulted = reportedRanks(view).filter(rankFaulted);
  return faulted.length > 0 ? faulted.map((rank) => rank.rank) : podRanks(view, perNode);
}

/** Ranks a pod runs, for totals: what its agent reports, else the ranks per node. */
export function podRankCount(view: ObservedPod, perNode: number): number {
  const reported = reportedRanks(view).length;
  return reported > 0 ? reported : perNode;
}
