import type { RankHealth, RankView } from "@/server/domain/jobs/view-model";

/**
 * One rank's health as the console colours it, from the agent's per-rank report (`/status.ranks`), the
 * agent's own state, the pod's phase and the job's recovery state.
 *
 * Precedence, first match wins (the most actionable state is the one an engineer must see):
 *  1. faulted    — the rank crashed, any log rule is FAULTED, the agent is FAULTED or the pod Failed.
 *                  A dead process outranks everything: nothing else about it is still true.
 *  2. restarting — the job is recovering (the operator is restarting processes, replacing a pod or
 *                  restarting the job), the agent is STOPPING, or the rank is starting again after a
 *                  restart (restarts > 0). A first start (restarts = 0, job not recovering) is not a
 *                  restart: it falls through to waiting.
 *  3. hanging    — any rule HANGING (no matching line within the rule's window).
 *  4. slow       — any rule SLOW (a metric rule crossed its threshold).
 *  5. suspect    — the agent marks the rank suspect: it printed, then went silent past the rules' shortest
 *                  recurring window, and it is not (or not yet) a fault of the job.
 *  6. stalled    — a running rank that printed progress before has printed none for well past its usual
 *                  interval ("no progress for N s", ./progress-stall.ts): Rebound's own early display,
 *                  not a fault; the log rules decide whether and when the job faults.
 *  7. straggler  — throughput or step well below its peers (see ./straggler.ts); grey failure, no rule.
 *  8. waiting    — not producing yet: the rank or agent is still starting (starting / INIT / READY), the
 *                  pod is Pending, every rule is WAITING, or, with no rules, no step has been seen.
 *                  HEALTHY beats WAITING as in the agent's own aggregation
 *                  (server/domain/log-rules/aggregate.ts): one healthy rule makes the rank healthy.
 *  9. healthy.
 *
 * Rule states count only on ranks whose rules can fault the job (`logWatched`, local rank 0 by default as
 * in hyperpodrun): another rank's HANGING rule (e.g. a rank that never prints steps) is shown in its rule
 * states but does not colour it; its silence shows as suspect instead.
 *
 * States are compared case-insensitively: the agent reports `running`, HyperPod's docs write `RUNNING`.
 */

export type RankHealthInput = {
  rank: Pick<RankView, "state" | "step" | "ruleStates" | "restarts" | "suspect" | "logWatched">;
  /** The pod's agent state (init/ready/running/stopping/faulted/completed/shutdown); null if unknown. */
  agentState: string | null;
  /** The pod's phase: Pending, Running, Succeeded, Failed, Unknown. */
  podPhase: string;
  /** The operator is recovering the job (a restart, replacement or full restart is in progress). */
  recovering: boolean;
  straggler: boolean;
  /** No progress for past its threshold (./progress-stall.ts stalledForMs); absent: not known stalled. */
  stalled?: boolean;
};

const upper = (value: string | null): string => (value ?? "").toUpperCase();

function ruleStateSet(ruleStates: Readonly<Record<string, string>>): Set<string> {
  return new Set(Object.values(ruleStates).map(upper));
}

function isFaulted(input: RankHealthInput, rules: Set<string>): boolean {
  return (
    input.rank.state === "crashed" ||
    rules.has("FAULTED") ||
    upper(input.agentState) === "FAULTED" ||
    upper(input.podPhase) === "FAILED"
  );
}

function isRestarting(input: RankHealthInput): boolean {
  if (input.recovering || upper(input.agentState) === "STOPPING") return true;
  return input.rank.state === "starting" && input.rank.restarts > 0;
}

function isWaiting(input: RankHealthInput, rules: Set<string>): boolean {
  const agent = upper(input.agentState);
  if (input.rank.state === "starting" || agent === "INIT" || agent === "READY") return true;
  if (upper(input.podPhase) === "PENDING") return true;
  if (rules.size > 0) return !rules.has("HEALTHY") && rules.has("WAITING");
  return input.rank.step === null;
}

/** Classifies one rank for the console; see the file header for the precedence and why. */
export function rankHealth(input: RankHealthInput): RankHealth {
  const rules = input.rank.logWatched === false ? new Set<string>() : ruleStateSet(input.rank.ruleStates);
  if (isFaulted(input, rules)) return "faulted";
  if (isRestarting(input)) return "restarting";
  if (rules.has("HANGING")) return "hanging";
  if (rules.has("SLOW")) return "slow";
  if (input.rank.suspect === true) return "suspect";
  if (input.stalled === true) return "stalled";
  if (input.straggler) return "straggler";
  if (isWaiting(input, rules)) return "waiting";
  return "healthy";
}
