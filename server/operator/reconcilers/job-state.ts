import { z } from "zod";
import type { JobCondition, JobStatus } from "@/server/domain/job-spec/job-status.schema";
import {
  jobPhaseSchema,
  liveAdmissionSchema,
  type RestartType,
  restartTypeSchema,
} from "@/server/domain/operator-api/contract";

/**
 * Our bookkeeping in `status.rebound` (HyperPod's own fields stay as HyperPod defines them,
 * docs/hyperpod-compatibility.md, "The job resource"). It is the only state the operator keeps between
 * reconciles, so a restarted operator continues where it stopped.
 */

/**
 * A restart's type as the status keeps it, in the contract's spelling. An older operator wrote a pod
 * replacement as "REPLACE_PODS": a status it left mid-recovery reads as POD_REPLACEMENT and the restart goes
 * on (a status that does not parse would start the job's bookkeeping afresh, readState).
 */
const savedRestartTypeSchema = z.union([
  restartTypeSchema,
  z.literal("REPLACE_PODS").transform((): RestartType => "POD_REPLACEMENT"),
]);

const recoverySchema = z.object({
  eventId: z.string(),
  action: savedRestartTypeSchema,
  stage: z.enum(["replacing", "stopping", "starting"]),
  reason: z.string(),
  faultAt: z.number(),
  detectedAt: z.number(),
  pods: z.array(z.string()),
  avoidNodes: z.array(z.string()),
  useSpare: z.string().nullable(),
  /**
   * Creation time of each pod of `pods` when the restart was decided: a pod of that name created since is
   * its replacement, so a retried step never replaces it again. Absent in a status written before this
   * field existed (then every listed pod is replaced).
   */
  podsCreatedAt: z.record(z.string(), z.number()).optional(),
  /** Crash-loop back-off: agents are not started again before this epoch ms (absent: at once). */
  notBefore: z.number().optional(),
  /** When the current stage began (epoch ms; absent: at detection), for the stage metric. */
  stageSince: z.number().optional(),
});

/**
 * A decision whose restart-timeline row, event and detection metric are not written yet: saved in status
 * before any of them (the intent), cleared once they are, so a retried or restarted reconcile writes them
 * with the same row id instead of deciding the fault again.
 */
const pendingRecordSchema = z.object({
  id: z.string(),
  ranks: z.array(z.number()),
  pods: z.array(z.string()),
  node: z.string().nullable(),
  reason: z.string(),
  faultAt: z.number(),
  detectedAt: z.number(),
  action: z.enum(["PLR", "POD_REPLACEMENT", "JLR", "FAIL"]),
  message: z.string(),
  event: z.object({ type: z.enum(["Normal", "Warning"]), message: z.string() }),
  /** A fault's detection latency is observed (a person's restart has none). */
  detection: z.boolean(),
  /** The decision was FAIL: the job fails with this once the row is written. */
  fail: z.object({ reason: z.string(), message: z.string() }).nullable(),
  /** A failure after a restart that made no progress: collapsed into the same failure's record (a count). */
  repeat: z.boolean().optional(),
  /** The restart this decision supersedes: its row is completed as failed with this message. */
  supersedes: z.object({ id: z.string(), message: z.string() }).nullable(),
});

/**
 * Restarts in a row without progress (server/domain/recovery/crash-loop.ts), whether the job made progress
 * since the last one, and when a pod that failed to start may be created again.
 */
const crashLoopSchema = z.object({
  restartsWithoutProgress: z.number(),
  progressed: z.boolean(),
  notBefore: z.number().nullable(),
  /** Pods (name@createdAt) whose start failure is already counted. */
  counted: z.array(z.string()).optional(),
  /**
   * The restart-timeline row of the start failures in a row (lifecycle.ts): completed as recovered once
   * the job runs, as failed when the crash loop fails it; null or absent: none open.
   */
  startRow: z.string().nullable().optional(),
});
export type CrashLoop = z.infer<typeof crashLoopSchema>;
export const NO_CRASH_LOOP: CrashLoop = { restartsWithoutProgress: 0, progressed: false, notBefore: null };

const rendezvousSchema = z.object({ addr: z.string(), port: z.string(), ipVersion: z.string() });

/**
 * A graceful stop for a preemption under way (task governance): agents were sent `/stop` with
 * `is_graceful` at `since`; the pods go once every agent is READY or the timeout (plus a margin) passed.
 */
const preemptionSchema = z.object({
  since: z.number(),
  timeoutSeconds: z.number(),
  by: z.string().nullable(),
  reason: z.string(),
  message: z.string(),
});
export type PreemptionState = z.infer<typeof preemptionSchema>;

/**
 * An elastic job's scaling (issue 14, server/operator/reconcilers/elastic.ts): the memory of the scaling state
 * machine (server/domain/elastic/scaling.ts) and the scaling under way, if any. `stage`: "pods" (a scale-up's
 * new pods are made and their agents come up READY while the old ranks keep training), "stopping" (every
 * rank was sent the graceful /stop at `stageSince`), "restarting" (the pods beyond the new size are gone;
 * the agents are started at the new world size).
 */
const elasticStateSchema = z.object({
  size: z.number(),
  lastScalingAt: z.number().nullable(),
  lastRestartAt: z.number().nullable(),
  failures: z.number(),
  lastFailureAt: z.number().nullable(),
  upSince: z.number().nullable(),
  /** Why no scaling happens now (the console's "stabilising before a scale-up", …); null: nothing to do. */
  why: z.string().nullable(),
  /** The last scaling's reason (isFaultyPodScaleDown). */
  lastReason: z.string().nullable(),
  scaling: z
    .object({
      from: z.number(),
      to: z.number(),
      reason: z.enum(["ScaleUp", "Preempted", "FaultyScaleDown"]),
      stage: z.enum(["pods", "stopping", "restarting"]),
      since: z.number(),
      stageSince: z.number(),
      timeoutSeconds: z.number(),
      /**
       * A FaultyScaleDown's restart (its row stays pending): once the agents run at the smaller size it is
       * completed as recovered and Running turns True; a scaling that fails completes it as failed.
       */
      fault: z
        .object({
          eventId: z.string(),
          reason: z.string(),
          action: savedRestartTypeSchema,
          faultAt: z.number(),
          detectedAt: z.number(),
        })
        .nullable()
        .optional(),
    })
    .nullable(),
});
export type ElasticState = z.infer<typeof elasticStateSchema>;

export const reboundStateSchema = z.object({
  phase: jobPhaseSchema,
  /** Epoch ms the phase began (deadlines). */
  since: z.number(),
  recovery: recoverySchema.nullable(),
  record: pendingRecordSchema.nullable().default(null),
  rendezvous: rendezvousSchema.nullable(),
  crashLoop: crashLoopSchema.default(NO_CRASH_LOOP),
  /**
   * The job's admission under task governance (null: not governed). Kept here so a restarted operator
   * knows which jobs hold capacity; absent in a status written before governance.
   */
  admission: liveAdmissionSchema.nullable().default(null),
  preemption: preemptionSchema.nullable().default(null),
  /**
   * What the running attempt's agents were started with (issue 12): a fingerprint of the log rules sent at
   * /start and the policy in force then. The spec's rules differing from these = new rules pending restart.
   */
  started: z
    .object({ logRules: z.string(), policy: z.string().nullable(), at: z.number() })
    .nullable()
    .default(null),
  /** Elastic jobs only (null: not elastic, or not started yet). */
  elastic: elasticStateSchema.nullable().default(null),
  history: z.array(
    z.object({
      at: z.number(),
      type: restartTypeSchema,
      nodes: z.array(z.string()),
      pods: z.array(z.string()),
    }),
  ),
});

export type ReboundState = z.infer<typeof reboundStateSchema>;
export type Recovery = z.infer<typeof recoverySchema>;
export type PendingRecord = z.infer<typeof pendingRecordSchema>;

export const HISTORY_LIMIT = 100;

export function readState(status: JobStatus, now: number): ReboundState {
  const parsed = reboundStateSchema.safeParse((status as { rebound?: unknown }).rebound);
  return parsed.success
    ? parsed.data
    : {
        phase: "Starting",
        since: now,
        recovery: null,
        record: null,
        rendezvous: null,
        crashLoop: { ...NO_CRASH_LOOP },
        admission: null,
        preemption: null,
        started: null,
        elastic: null,
        history: [],
      };
}

export function withState(status: JobStatus, state: ReboundState): JobStatus {
  return { ...status, rebound: { ...state, history: state.history.slice(-HISTORY_LIMIT) } };
}

/** Sets a condition; lastTransitionTime changes only when its status flips (Kubernetes convention). */
export function setCondition(
  status: JobStatus,
  condition: { type: string; status: "True" | "False"; reason: string; message?: string },
  now: number,
): JobStatus {
  const conditions: JobCondition[] = [...(status.conditions ?? [])];
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  const previous = index >= 0 ? conditions[index] : undefined;
  const time = new Date(now).toISOString();
  const next: JobCondition = {
    type: condition.type,
    status: condition.status,
    reason: condition.reason,
    message: condition.message ?? "",
    lastTransitionTime: previous && previous.status === condition.status ? previous.lastTransitionTime : time,
    lastProbeTime: time,
  };
  if (index >= 0) conditions.splice(index, 1);
  conditions.push(next);
  return { ...status, conditions };
}

/**
 * Why the job is not running, when it is not: the Failed condition's reason and message, else a False
 * Admitted condition's (waiting for admission under task governance), else a False PodsRunning or Running
 * condition's (a start failure, a back-off, a restart under way); null otherwise. The reason is said once:
 * a message that already begins with it (an older operator's "CrashLoop: CrashLoop: …") is not prefixed.
 * The full text, new lines included: tables show it through oneLine.
 */
export function statusReason(status: JobStatus): string | null {
  const conditions = status.conditions ?? [];
  const failed = conditions.find((c) => c.type === "Failed" && c.status === "True");
  const blocking =
    failed ??
    conditions.find((c) => c.type === "Admitted" && c.status === "False") ??
    conditions.find((c) => (c.type === "PodsRunning" || c.type === "Running") && c.status === "False");
  if (!blocking) return null;
  const reason = blocking.reason ?? "";
  const message = blocking.message ?? "";
  if (!message) return reason || null;
  if (!reason || message.startsWith(`${reason}:`)) return message;
  return `${reason}: ${message}`;
}

/**
 * When the job's crash-loop back-off ends (epoch ms), while it waits one out at `now`: a restart whose
 * agents are not started again before then (recovery.ts), or a pod that exited at start and is not
 * created again before then (lifecycle.ts); null when it waits for nothing of the kind.
 */
export function backOffUntil(state: ReboundState, now: number): number | null {
  const until =
    state.phase === "Recovering"
      ? (state.recovery?.notBefore ?? null)
      : state.phase === "Starting"
        ? state.crashLoop.notBefore
        : null;
  return until !== null && now < until ? until : null;
}

/**
 * HyperPod CLI's STATUS column: the type of the last condition whose status is True; "BackOff" while the
 * job waits out a crash-loop back-off (`backOff`: backOffUntil), which no condition of HyperPod's says
 * (PodsRunning stays True while nothing runs).
 */
export function displayStatus(status: JobStatus, backOff: number | null = null): string {
  if (backOff !== null) return "BackOff";
  const conditions = status.conditions ?? [];
  for (let i = conditions.length - 1; i >= 0; i -= 1) {
    if (conditions[i]?.status === "True") return conditions[i]?.type ?? "Unknown";
  }
  return "Pending";
}
