import { logRulesAllRanksFromEnv } from "@/server/agent/env";
import { containerArgv, containerEnv } from "@/server/cluster/local/agent-command";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";

/**
 * Reading a pod's output for a shadow rule set, as the agent reads its ranks: the agent tees each local
 * rank's lines as `[default<localRank>]:<line>` (server/agent/attempt-context.ts teeLine), and watches local
 * rank 0 only, as hyperpodrun does, unless the job opts into every rank (`--log-rules-all-ranks` or
 * REBOUND_LOG_RULES_ALL_RANKS on its container).
 */
const RANK_LINE = /^\[default(\d{1,4})\]:(.*)$/;

export function parseRankLine(line: string): { localRank: number; text: string } | null {
  const match = RANK_LINE.exec(line);
  return match ? { localRank: Number(match[1]), text: match[2] ?? "" } : null;
}

/** Whether the job's agents watch every local rank (else local rank 0 only). */
export function watchesAllRanks(job: HyperPodPyTorchJob): boolean {
  const containers = job.spec.replicaSpecs.flatMap((spec) => spec.template?.spec?.containers ?? []);
  const fromEnv = logRulesAllRanksFromEnv(containerEnv(containers));
  return (fromEnv.ok && fromEnv.value) || containerArgv(containers).includes("--log-rules-all-ranks");
}

export const isWatched = (localRank: number, allRanks: boolean): boolean => allRanks || localRank === 0;

/** How many of the previous read's last lines must reappear for a tail to be read as continuing it. */
const OVERLAP = 20;

/**
 * The lines of `tail` after what was read before (`seen`: the previous read's last lines), for back ends
 * that give a pod's output as its last lines: where the previous read's last lines reappear, what follows
 * them is new; where they do not (more was written than a tail holds, or the output restarted), all is new.
 */
export function linesAfter(seen: readonly string[], tail: readonly string[]): string[] {
  const mark = seen.slice(-OVERLAP);
  if (mark.length === 0) return [...tail];
  for (let end = tail.length; end >= mark.length; end -= 1) {
    if (mark.every((line, index) => tail[end - mark.length + index] === line)) return tail.slice(end);
  }
  return [...tail];
}

export const lastLines = (lines: readonly string[]): string[] => lines.slice(-OVERLAP);
