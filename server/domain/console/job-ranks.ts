import type { RankHealth } from "@/server/domain/jobs/view-model";
import type { LiveJob, LivePod } from "@/server/domain/operator-api/contract";
import { progressAtMs, stalledForMs } from "./progress-stall";
import { rankHealth } from "./rank-health";
import { findStragglers } from "./straggler";

/**
 * A live job's ranks as the console judges them, without building its topology: the rules the job page's
 * topology (server/services/jobs/job-view.ts) and the lists' "healthy ranks" count share. The operator counts
 * healthy ranks with them too, for its list's summary view (GET /api/v1/jobs?view=summary), so the jobs list
 * and the TV views of a 2,048-rank job need not carry, parse and walk every rank twice a second.
 */

type AgentRank = LivePod["ranks"][number];

/** The agent writes non-finite floats as "nan"/"inf"/"-inf" (JSON has no NaN); the view keeps numbers. */
export function float(value: number | "nan" | "inf" | "-inf" | null): number | null {
  if (value === null || typeof value === "number") return value;
  return value === "nan" ? Number.NaN : value === "inf" ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
}

/** The agent answers but lists no ranks (hyperpodrun's own /status has no per-rank list). */
export function ranksUnreported(pod: LivePod): boolean {
  return pod.agentState !== null && pod.ranks.length === 0;
}

export const RANKS_UNREPORTED_NOTE = "per-rank detail is not reported by this agent";

/** A rank its agent does not list (pod missing, agent unreachable, or an agent that lists none). */
export function missingHealth(pod: LivePod, recovering: boolean, jobFailed: boolean): RankHealth {
  if (jobFailed || pod.agentState === "faulted" || pod.phase === "Failed") return "faulted";
  if (recovering) return "restarting";
  // What is known of a rank its agent does not list: the agent's own state.
  return ranksUnreported(pod) && pod.agentState === "running" && pod.phase === "Running"
    ? "healthy"
    : "waiting";
}

/** Ranks of the job well behind their peers in throughput or step (./straggler.ts). */
export function jobStragglers(live: LiveJob): Set<number> {
  return findStragglers(
    live.pods.flatMap((pod) =>
      pod.ranks.map((rank) => ({ rank: rank.rank, throughput: float(rank.throughput), step: rank.step })),
    ),
  );
}

/** Whether a listed rank shows "no progress for N s" at `now` (./progress-stall.ts). */
export function rankStalled(rank: AgentRank, now: number): boolean {
  const facts = {
    state: rank.state,
    lastProgressAt: progressAtMs(rank.last_progress_at),
    progressIntervalMs: rank.progress_interval_ms,
  };
  return stalledForMs(facts, now) !== null;
}

/** A rank its agent lists, as rank-health.ts classifies it; `now` (epoch ms) dates its progress age. */
export function reportedRankHealth(
  pod: LivePod,
  rank: AgentRank,
  opts: { recovering: boolean; straggler: boolean; now: number },
): RankHealth {
  return rankHealth({
    rank: {
      state: rank.state,
      step: rank.step,
      ruleStates: rank.rule_states,
      restarts: rank.restarts,
      suspect: rank.suspect ?? false,
      logWatched: rank.log_watched,
    },
    agentState: pod.agentState,
    podPhase: pod.phase,
    recovering: opts.recovering,
    straggler: opts.straggler,
    stalled: rankStalled(rank, opts.now),
  });
}

/** Local ranks a pod should have: the job's ranks spread evenly over its pods. */
export function ranksPerPod(live: LiveJob): number {
  return live.pods.length > 0 ? Math.round(live.ranksTotal / live.pods.length) : 0;
}

type JobState = {
  recovering: boolean;
  jobFailed: boolean;
  stragglers: Set<number>;
  perPod: number;
  now: number;
};

/** One pod's healthy ranks: its listed ranks, then the placeholders for those it does not list. */
function podHealthyRanks(pod: LivePod, state: JobState): number {
  const listed = new Set(pod.ranks.map((rank) => rank.local_rank));
  const healthy = pod.ranks.filter(
    (rank) =>
      reportedRankHealth(pod, rank, {
        recovering: state.recovering,
        straggler: state.stragglers.has(rank.rank),
        now: state.now,
      }) === "healthy",
  ).length;
  let missing = 0;
  for (let localRank = 0; localRank < state.perPod; localRank += 1) if (!listed.has(localRank)) missing += 1;
  const placeholdersHealthy =
    missing > 0 && missingHealth(pod, state.recovering, state.jobFailed) === "healthy";
  return healthy + (placeholdersHealthy ? missing : 0);
}

/**
 * How many of the job's ranks the topology would show healthy (listed and placeholder ranks alike), with
 * progress ages taken at `now` (default: when the operator last observed the job).
 */
export function countHealthyRanks(live: LiveJob, now: number = live.updatedAt): number {
  // A finished job's ranks no longer run: the topology shows them finished (server/services/jobs/job-view.ts).
  if (live.phase === "Succeeded" || live.phase === "Failed") return 0;
  const state: JobState = {
    now,
    recovering: live.recovery !== null,
    jobFailed: false, // a failed job returned above
    stragglers: jobStragglers(live),
    perPod: ranksPerPod(live),
  };
  return live.pods.reduce((sum, pod) => sum + podHealthyRanks(pod, state), 0);
}
