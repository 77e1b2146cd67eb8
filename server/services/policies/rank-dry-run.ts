import type { JobRef } from "@/server/cluster/types";
import type { JobPage } from "@/server/domain/jobs/pages";
import type { RankOutput } from "@/server/domain/operator-api/rank-output";
import type { DryRunInput, DryRunResult } from "@/server/domain/policy";
import { AppError } from "@/server/errors";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { toAppError } from "@/server/services/jobs/queries";

/**
 * A dry-run on a running rank (issue 32): the rank's whole output since its attempt started, each line at
 * the time it arrived (server/domain/operator-api/rank-output.ts), the rules started when the attempt did,
 * and the run stopped when the output was read (or where it was cut, or where the rank's process ended):
 * a window still open then is a deadline, not a fault. What live rules would not do, the dry-run does not
 * predict: a rank whose rules are not watched (local rank 0 only, unless the job opts into every rank)
 * faults nothing, and lines whose arrival is unknown are not timed against hang windows.
 */

/** What the dry-run read, for the panel: whose output, from when, and whether its rules can fault the job. */
export type RankDryRunInfo = {
  rank: number;
  pod: string;
  localRank: number;
  /** Its rules can fault the job (the agent's `log_watched`; local rank 0 where the agent lists no ranks). */
  watched: boolean;
  attempt: number | null;
  /** Epoch ms its rules started (its attempt's start); null: unknown. */
  startedAt: number | null;
  /** Epoch ms the output was read. */
  readAt: number;
  /** Lines carried the time they arrived; false: hang windows were not judged. */
  timed: boolean;
};

export type PolicyDryRun = DryRunResult & { rank: RankDryRunInfo | null };

export type LiveRun = {
  input: Omit<DryRunInput, "runPolicy" | "history">;
  notes: string[];
  info: RankDryRunInfo;
};

const seconds = (ms: number) => `${Math.round(ms / 1000).toLocaleString("en-US")} s`;

/** When the simulation stops: the read, or the cut, or the end of the rank's process, whichever is first. */
function endOf(output: RankOutput, running: boolean): number {
  const lastLine = output.lines.at(-1)?.at ?? output.startedAt ?? output.readAt;
  const ended = output.endedAt ?? (running ? Number.POSITIVE_INFINITY : lastLine);
  return Math.min(output.completeUntil, ended);
}

function timedRun(output: RankOutput, running: boolean): LiveRun["input"] {
  return {
    logText: output.lines.map((line) => line.text).join("\n"),
    arrivals: output.lines.map((line) => line.at),
    ...(output.startedAt === null ? {} : { rulesStartedAt: output.startedAt }),
    endAt: endOf(output, running),
  };
}

/** No arrival times: every line at the attempt's start and no time passing (matches and values only). */
function untimedRun(output: RankOutput): LiveRun["input"] {
  const at = output.startedAt ?? output.readAt;
  return {
    logText: output.lines.map((line) => line.text).join("\n"),
    arrivals: output.lines.map(() => at),
    rulesStartedAt: at,
    endAt: at,
  };
}

function readNotes(output: RankOutput, input: { timed: boolean; running: boolean }): string[] {
  const notes: string[] = [];
  const since = output.startedAt;
  if (output.overLimit && since !== null)
    notes.push(
      `the attempt printed more than the dry-run takes (20,000 lines, 2 MB): its first ${output.lines.length} lines were run, up to ${seconds(output.completeUntil - since)} after it started, and the run stops there`,
    );
  else if (output.overLimit) notes.push(`only the first ${output.lines.length} lines of the rank were run`);
  if (since === null)
    notes.push(
      "the attempt's start is not known here (the cluster's own operator runs the job): the rules start at the first line read, which may be an earlier attempt's",
    );
  if (!input.timed)
    notes.push(
      output.timing === "none"
        ? "the pod's agent records no arrival times (HyperPod's own agent): matches, values and faults on a line are shown; hang windows are not judged"
        : "no output of this rank was found since its attempt started (on Kubernetes its agent must tee it: --tee 3): hang windows are not judged",
    );
  if (!input.running && input.timed)
    notes.push("the rank is not running: its rules stopped when its process ended");
  return notes;
}

/** The rank's output since its attempt started, as a live dry-run's input, with what to say about it. */
export async function liveRankRun(
  source: ClusterSource,
  input: { page: JobPage; ref: JobRef; rank: number },
): Promise<LiveRun> {
  const view = input.page.topology.ranks.find((rank) => rank.rank === input.rank);
  if (!view)
    throw new AppError(
      "NOT_FOUND",
      `rank: ${input.rank} is not a rank of job ${input.ref.namespace}/${input.ref.name}`,
    );
  const output = await source
    .rankOutput(input.ref, { pod: view.pod, localRank: view.localRank })
    .catch((error: unknown) => {
      throw toAppError(error);
    });
  const running = view.state === "running" && output.endedAt === null;
  const timed = output.timing === "arrivals" || (output.timing === "runtime" && output.lines.length > 0);
  return {
    input: timed ? timedRun(output, running) : untimedRun(output),
    notes: readNotes(output, { timed, running }),
    info: {
      rank: view.rank,
      pod: view.pod,
      localRank: view.localRank,
      watched: view.logWatched ?? view.localRank === 0,
      attempt: output.attempt,
      startedAt: output.startedAt,
      readAt: output.readAt,
      timed,
    },
  };
}

/**
 * The dry-run's result told as live rules would act: an unwatched rank's rules fault nothing (what they
 * would do is said in a note), and without arrival times no deadline is given.
 */
export function asLive(result: DryRunResult, run: LiveRun): PolicyDryRun {
  const notes = [...run.notes, ...result.notes];
  const { fault } = result;
  if (run.info.watched) {
    const deadlines = run.info.timed ? result.deadlines : [];
    return { ...result, deadlines, notes, rank: run.info };
  }
  notes.unshift(
    `local rank ${run.info.localRank} is not watched: the agent acts on local rank 0's rules only unless the job opts into every rank (--log-rules-all-ranks), so this rank's rules would not fault the job${fault ? ` (${fault.rule} would turn ${fault.state} ${seconds(fault.at - result.start)} after the rules started)` : ""}`,
  );
  return { ...result, fault: null, nextAction: null, deadlines: [], notes, rank: run.info };
}
