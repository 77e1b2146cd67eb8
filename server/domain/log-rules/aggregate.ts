import type { LogState } from "./evaluator";
import { type FaultLogState, type LogFault, logFault, type RuleLines } from "./fault-reason";

/**
 * Combining rule states, as the agent does (docs/hyperpod-compatibility.md, "Log-rule evaluation"; the
 * agent's log_agent.py and agent.py).
 *
 * Per rank: FAULTED > HANGING > SLOW > HEALTHY > WAITING. The winning state comes with every rule that is
 * in it, in config order, each with its last matched line; the first of them names the fault reason.
 * (HEALTHY beats WAITING: one healthy rule makes the rank HEALTHY while others still wait.)
 */

export type RuleOutcome = {
  readonly rule: string;
  readonly state: LogState;
  readonly lastMatchLine: string | null;
};

export type RankLogState = { readonly state: LogState; readonly rules: RuleLines };

const PRECEDENCE: readonly LogState[] = ["FAULTED", "HANGING", "SLOW", "HEALTHY", "WAITING"];

export const WAITING_RANK: RankLogState = { state: "WAITING", rules: [] };

export function aggregateRuleStates(outcomes: readonly RuleOutcome[]): RankLogState {
  for (const state of PRECEDENCE) {
    const rules = outcomes
      .filter((outcome) => outcome.state === state)
      .map((outcome) => ({ rule: outcome.rule, line: outcome.lastMatchLine }));
    if (rules.length > 0) return { state, rules };
  }
  return WAITING_RANK;
}

export function isFaultState(state: LogState): state is FaultLogState {
  switch (state) {
    case "FAULTED":
    case "HANGING":
    case "SLOW":
      return true;
    case "HEALTHY":
    case "WAITING":
      return false;
    default:
      return state satisfies never;
  }
}

/** The reason/message the agent reports for this rank, or null while it is HEALTHY or WAITING. */
export function rankLogFault(rank: RankLogState): LogFault | null {
  return isFaultState(rank.state) ? logFault(rank.state, rank.rules) : null;
}

/**
 * Across the monitored local ranks, like the agent's get_log_agent_state(): the FIRST rank (in order)
 * that is FAULTED, HANGING or SLOW wins, even if a later rank is worse; otherwise WAITING if any rank
 * waits, else HEALTHY. By default the agent monitors local rank 0 only.
 */
export function aggregateRanks(ranks: readonly RankLogState[]): RankLogState {
  const bad = ranks.find((rank) => isFaultState(rank.state));
  if (bad) return bad;
  if (ranks.length === 0 || ranks.some((rank) => rank.state === "WAITING")) return WAITING_RANK;
  return { state: "HEALTHY", rules: [] };
}
