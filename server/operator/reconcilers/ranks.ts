import type { ClusterJob } from "@/server/cluster/types";
import { jobTotals } from "@/server/domain/job-spec/job-totals";
import type { AgentRank as RankStatus } from "@/server/operator/agent-client";
import type { Observation, PodView } from "./observe";

/**
 * Ranks counted from what runs: the manifest's estimate (`--nproc-per-node` in the command, else
 * `nprocPerNode`, server/domain/job-spec/job-totals.ts) until an agent reports its ranks, then the most
 * ranks any pod reports. 1 when neither tells (an "auto"/"cpu" job on CPUs before its agents answer).
 */
export function ranksPerNode(job: ClusterJob, obs?: Observation): number {
  const reported = Math.max(0, ...(obs?.pods ?? []).map((view) => reportedRanks(view).length));
  if (reported > 0) return reported;
  return jobTotals(job.job).ranksPerNode ?? 1;
}

/** The per-rank list a pod's agent reports (empty for an agent that reports none, e.g. hyperpodrun). */
export function reportedRanks(view: PodView): RankStatus[] {
  return view.agent.kind === "status" ? (view.agent.status.ranks ?? []) : [];
}

/** Global ranks of a pod: as its agent reports them, else its group's ranks from the ranks per node. */
export function podRanks(view: PodView, perNode: number): number[] {
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

/**
 * The ranks behind an agent's fault: those it reports crashed, failed or tripping a log rule; all of the
 * pod's ranks when it names none (an agent without a per-rank list, or a fault no rank explains).
 */
export function faultedRanks(view: PodView, perNode: number): number[] {
  const faulted = reportedRanks(view).filter(rankFaulted);
  return faulted.length > 0 ? faulted.map((rank) => rank.rank) : podRanks(view, perNode);
}

/** Ranks a pod runs, for totals: what its agent reports, else the ranks per node. */
export function podRankCount(view: PodView, perNode: number): number {
  const reported = reportedRanks(view).length;
  return reported > 0 ? reported : perNode;
}
