import { z } from "zod";
import { MAX_DRY_RUN_BYTES, MAX_DRY_RUN_LINES } from "@/server/domain/policy/dry-run";

/**
 * One rank's output since its current attempt started, with when each line arrived: what a dry-run of log
 * rules on a running rank plays (server/services/policies/dry-run.ts), read by the back end where the lines
 * are kept (the local back end: the agent's attempt folder and its arrival times, server/agent/arrivals.ts;
 * Kubernetes: the pod's log with the kubelet's timestamps) and served by the operator's API
 * (`GET /api/v1/jobs/<ns>/<name>/rank-output?pod=…&localRank=…`). At most RANK_OUTPUT_LIMITS are sent, the
 * first lines from the attempt's start: a dry-run takes no more.
 */
export const RANK_OUTPUT_LIMITS = { lines: MAX_DRY_RUN_LINES, bytes: MAX_DRY_RUN_BYTES } as const;

export const rankOutputLineSchema = z.object({
  text: z.string(),
  /** Epoch ms the line arrived (null: not recorded, e.g. HyperPod's own agent on the local back end). */
  at: z.number().nullable(),
});

export const rankOutputSchema = z.object({
  /** The attempt read (the agent's `attempt_<n>`), where known. */
  attempt: z.int().nullable(),
  /** Epoch ms the rank's rules started: its attempt's start (null: unknown, e.g. console-only mode). */
  startedAt: z.number().nullable(),
  /** Epoch ms the rank's process ended (null: it runs, or unknown). */
  endedAt: z.number().nullable(),
  /** Epoch ms the output was read. */
  readAt: z.number(),
  lines: z.array(rankOutputLineSchema),
  /**
   * The lines are every line the rank printed up to this time (epoch ms): `readAt`, or, where the output
   * went on past what was sent, when the first line left out arrived.
   */
  completeUntil: z.number(),
  /** Lines past RANK_OUTPUT_LIMITS were left out. */
  overLimit: z.boolean(),
  /**
   * Where the lines' times come from: the agent's record of arrivals (every line the rank printed, even
   * none), the container runtime's timestamps (only what the agent tees into the pod's log), or nowhere.
   */
  timing: z.enum(["arrivals", "runtime", "none"]),
});
export type RankOutput = z.infer<typeof rankOutputSchema>;
export type RankOutputLine = z.infer<typeof rankOutputLineSchema>;

export const rankOutputResponseSchema = rankOutputSchema.extend({ pod: z.string(), localRank: z.int() });
export type RankOutputResponse = z.infer<typeof rankOutputResponseSchema>;

/** Which rank to read: its local rank in the pod, and (Kubernetes) when its attempt started. */
export type RankOutputRead = { localRank: number; since: number | null };

/** The lines up to the limits, in order: what fits, and whether lines were left out. */
export function withinLimits(lines: readonly RankOutputLine[]): { kept: RankOutputLine[]; left: number } {
  let bytes = 0;
  let count = 0;
  for (const line of lines) {
    bytes += Buffer.byteLength(line.text) + 1;
    if (count >= RANK_OUTPUT_LIMITS.lines || bytes > RANK_OUTPUT_LIMITS.bytes) break;
    count += 1;
  }
  return { kept: lines.slice(0, count), left: lines.length - count };
}
