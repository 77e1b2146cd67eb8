/**
 * The ranks an agent without a per-rank list (AWS's unchanged hyperpod-elastic-agent) names in a fault,
 * read from its `/status` reason and message as hyperpod-elastic-agent 1.1.3 writes them
 * (elastic_agent/hyperpod_elastic_agent.py `set_agent_state_fault`, ipr_hyperpod_elastic_agent.py):
 * - `WorkerCrash` / `WorkerUnhealthy`: a first line, then one line per failed process,
 *   "    Local Rank {r} exited with code {c} due to: {msg}": local ranks of the pod.
 * - `WorkerReportedFault` (in-process restart): "The processes reported a failure on ranks 3, 5": global ranks.
 * - anything else names none: log rules (`LogHang_<rule>`, `LogSlow_…`, `LogFault_…`: the message quotes
 *   the rule and its last line, not a rank), `WorkerFault` (unknown), a framework's own reason.
 */
export type AgentFaultRanks =
  | { kind: "local"; ranks: number[] }
  | { kind: "global"; ranks: number[] }
  | { kind: "none" };

const NONE: AgentFaultRanks = { kind: "none" };
const WORKER_LINE = /^ {4}Local Rank (\d+) exited with code -?\d+ due to: /gm;
const REPORTED = /^The processes reported a failure on ranks (\d+(?:, \d+)*)$/;

const distinct = (ranks: readonly number[]): number[] => [...new Set(ranks)].sort((a, b) => a - b);

function workerRanks(message: string): AgentFaultRanks {
  const ranks = [...message.matchAll(WORKER_LINE)].map((match) => Number(match[1]));
  return ranks.length > 0 ? { kind: "local", ranks: distinct(ranks) } : NONE;
}

function reportedRanks(message: string): AgentFaultRanks {
  const list = REPORTED.exec(message.trim())?.[1];
  return list ? { kind: "global", ranks: distinct(list.split(", ").map(Number)) } : NONE;
}

/** What the agent's fault says about its ranks; `none` when the reason or message names no rank. */
export function agentFaultRanks(status: { reason?: string; message?: string }): AgentFaultRanks {
  const message = status.message ?? "";
  switch (status.reason) {
    case "WorkerCrash":
    case "WorkerUnhealthy":
      return workerRanks(message);
    case "WorkerReportedFault":
      return reportedRanks(message);
    default:
      return NONE;
  }
}
