import {
  type RankOutput,
  type RankOutputLine,
  type RankOutputRead,
  withinLimits,
} from "@/server/domain/operator-api/rank-output";

/**
 * A rank's output on Kubernetes: the pod's log from its attempt's start, each line with the time the
 * container runtime took it in (`timestamps=true`, RFC 3339 with nanoseconds before the line), which is when
 * the agent wrote it out. The agent tees each local rank's lines as `[default<local rank>]:<line>` (torchrun's
 * and hyperpodrun's --tee 3); only this rank's are kept. The pods/log API takes a start in whole seconds
 * (`sinceSeconds`): a second more is read and lines before the attempt's start are dropped here.
 */

/** At most this much of a pod's log is read (every local rank's lines are in it). */
export const POD_LOG_READ_BYTES = 24 * 1024 * 1024;

export type PodLogRead = (params: { sinceSeconds?: number; limitBytes: number }) => Promise<string>;

const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) (.*)$/s;

/** A `timestamps=true` log line's time (epoch ms, null when it has none) and text. */
export function parseStampedLine(line: string): { at: number | null; text: string } {
  const match = STAMPED.exec(line);
  if (!match) return { at: null, text: line };
  const millis = (match[2] ?? "").padEnd(3, "0").slice(0, 3);
  const at = Date.parse(`${match[1]}.${millis}${match[3]}`);
  return { at: Number.isNaN(at) ? null : at, text: match[4] ?? "" };
}

function rankLines(text: string, input: { prefix: string; since: number | null; torn: boolean }) {
  const raw = text.split("\n");
  if (raw.at(-1) === "" || input.torn) raw.pop();
  const lines: RankOutputLine[] = [];
  let lastAt: number | null = null;
  for (const line of raw) {
    const stamped = parseStampedLine(line);
    lastAt = stamped.at ?? lastAt;
    if (input.since !== null && stamped.at !== null && stamped.at < input.since) continue;
    if (stamped.text.startsWith(input.prefix))
      lines.push({ text: stamped.text.slice(input.prefix.length), at: stamped.at });
  }
  return { lines, lastAt };
}

export async function rankOutputFromPodLog(input: {
  read: PodLogRead;
  rank: RankOutputRead;
  now: () => number;
}): Promise<RankOutput> {
  const { since, localRank } = input.rank;
  const readAt = input.now();
  const sinceSeconds = since === null ? undefined : Math.max(1, Math.ceil((readAt - since) / 1000) + 1);
  const text = await input.read({
    ...(sinceSeconds === undefined ? {} : { sinceSeconds }),
    limitBytes: POD_LOG_READ_BYTES,
  });
  // Cut by limitBytes: the last line may be torn, and what came after it is not known.
  const torn = Buffer.byteLength(text) >= POD_LOG_READ_BYTES;
  const { lines, lastAt } = rankLines(text, { prefix: `[default${localRank}]:`, since, torn });
  const { kept, left } = withinLimits(lines);
  const firstLeft = lines[kept.length]?.at ?? null;
  const completeUntil = left > 0 ? (firstLeft ?? lastAt ?? readAt) : torn ? (lastAt ?? readAt) : readAt;
  return {
    attempt: null,
    startedAt: since,
    endedAt: null,
    readAt,
    lines: kept,
    completeUntil,
    overLimit: left > 0 || torn,
    timing: "runtime",
  };
}
