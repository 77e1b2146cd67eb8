import { z } from "zod";
import { rankStatusSchema } from "@/server/domain/agent-api/protocol";
import {
  logMonitoringConfigurationSchema,
  runPolicySchema,
} from "@/server/domain/job-spec/run-policy.schema";
import {
  NODE_ACTIONS,
  NODE_MEANINGS,
  NODE_SIGNAL_SOURCES,
} from "@/server/domain/node-health/signal-table.schema";

/**
 * The operator's HTTP API (server/operator/api, port 8081) as one contract: the operator builds its answers
 * to these types, and the console and the CLI parse what they receive with these schemas, so a console and an
 * operator of different versions fail at the edge, in words, instead of inside a view.
 *
 * Bump OPERATOR_API_VERSION when a change is not backwards compatible (a field removed or its meaning
 * changed). Adding an optional field is compatible.
 */
export const OPERATOR_API_VERSION = "1";
/** Sent on every answer of the operator's API; the console refuses answers of another version. */
export const API_VERSION_HEADER = "rebound-api-version";

/** One spelling of each restart type everywhere (HyperPod's metric label values). */
export const restartTypeSchema = z.enum(["PLR", "POD_REPLACEMENT", "JLR"]);
export type RestartType = z.infer<typeof restartTypeSchema>;

/** Pending: a governed job waiting for admission (task governance); it has no pods. */
export const jobPhaseSchema = z.enum([
  "Pending",
  "Starting",
  "Running",
  "Recovering",
  "Suspended",
  "Succeeded",
  "Failed",
]);
export type JobPhase = z.infer<typeof jobPhaseSchema>;

export const jobRefSchema = z.object({ namespace: z.string(), name: z.string() });

/** A restart under way, as the console shows it. */
export const liveRecoverySchema = z.object({
  action: restartTypeSchema,
  stage: z.enum(["replacing", "stopping", "starting"]),
  reason: z.string(),
  faultAt: z.number(),
  detectedAt: z.number(),
  pods: z.array(z.string()),
});
export type LiveRecovery = z.infer<typeof liveRecoverySchema>;

export const livePodSchema = z.object({
  name: z.string(),
  node: z.string().nullable(),
  phase: z.string(),
  groupRank: z.int(),
  agentState: z.string().nullable(),
  agentReason: z.string().nullable(),
  agentError: z.string().nullable(),
  /** Per local rank detail; empty when the pod's agent does not report ranks (HyperPod's own agent). */
  ranks: z.array(rankStatusSchema),
  /**
   * Whether the pod's agent lists its ranks at all (ours does, HyperPod's does not). False: `ranks` is
   * always empty and the pod's ranks are known only by count. Absent from older operators.
   */
  reportsRanks: z.boolean().optional(),
  /** Epoch ms its agent last entered RUNNING (`/status` transitions): its attempt's start. Absent: unknown. */
  runningSince: z.number().nullable().optional(),
});
export type LivePod = z.infer<typeof livePodSchema>;

/**
 * Where a governed job stands with admission (task governance: Rebound's own on the local back end, Kueue's
 * Workload on clusters). Kueue's vocabulary: a pending reason such as InsufficientQuota, a preemption reason
 * such as InCohortReclamation.
 */
export const liveAdmissionSchema = z.object({
  state: z.enum(["Pending", "Admitted", "Preempting", "Preempted"]),
  reason: z.string(),
  message: z.string(),
  /** Epoch ms of the last change of state. */
  since: z.number(),
  /** The job (`<namespace>/<name>`) it was preempted for, when it was. */
  preemptedBy: z.string().nullable(),
  /** The flavor (instance type) it was admitted on. */
  flavor: z.string().nullable(),
});
export type LiveAdmission = z.infer<typeof liveAdmissionSchema>;

export const liveJobSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  /** The job object's uid: this run of the name (absent from operators older than runs). */
  uid: z.string().optional(),
  /** Epoch ms the job was created. */
  createdAt: z.number(),
  gpus: z.number(),
  /** `kueue.x-k8s.io/priority-class` and `kueue.x-k8s.io/queue-name` labels, when set. */
  priorityClass: z.string().nullable(),
  queue: z.string().nullable(),
  phase: jobPhaseSchema,
  status: z.string(),
  /** Why it is not running, when it is not (a start failure, a back-off, the failure); absent from older operators. */
  reason: z.string().nullable().optional(),
  /** Epoch ms a crash-loop back-off ends while the job waits one out (status "BackOff"); absent otherwise. */
  backOffUntil: z.number().nullable().optional(),
  recovery: liveRecoverySchema.nullable(),
  restartCount: z.int(),
  pods: z.array(livePodSchema),
  ranksTotal: z.int(),
  ranksRunning: z.int(),
  /**
   * Ranks the console would show healthy (server/domain/console/job-ranks.ts), counted by the operator. Set
   * only in the list's summary view (GET /api/v1/jobs?view=summary), where every pod's `ranks` is left
   * empty: a 2,048-rank job (256 pods) is then 44 KB of JSON instead of 794 KB.
   */
  ranksHealthy: z.int().optional(),
  updatedAt: z.number(),
  /** Admission under task governance; null: the job is not governed (no team queue). Absent from older operators. */
  admission: liveAdmissionSchema.nullable().optional(),
  /** What all of the job's pods (replicas + spares) request, resource → amount in base units. */
  request: z.record(z.string(), z.number()).optional(),
  /**
   * Elastic jobs only (issue 14): the size it scales to (targetReplicas), the size its ranks run at now
   * (actualReplicas), its elasticPolicy bounds, and why it is not scaling when it could (stabilising, snoozed…).
   */
  elastic: z
    .object({
      targetReplicas: z.int(),
      actualReplicas: z.int(),
      min: z.int(),
      max: z.int(),
      why: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type LiveJob = z.infer<typeof liveJobSchema>;

export const clusterEventSchema = z.object({
  type: z.enum(["Normal", "Warning"]),
  reason: z.string(),
  message: z.string(),
  at: z.number(),
  count: z.int().optional(),
  firstAt: z.number().optional(),
});

/** A node's judgement by the node-signal table (server/domain/node-health/evaluate.ts), as sent. */
export const nodeSignalSchema = z.object({
  rule: z.string(),
  fact: z.string(),
  source: z.enum(NODE_SIGNAL_SOURCES),
  meaning: z.enum(NODE_MEANINGS).exclude(["healthy"]),
  action: z.enum(NODE_ACTIONS).exclude(["none"]),
  graceSeconds: z.number(),
  reason: z.string(),
  since: z.number(),
});
export const nodeVerdictSchema = z.object({
  meaning: z.enum(NODE_MEANINGS),
  action: z.enum(NODE_ACTIONS),
  signals: z.array(nodeSignalSchema).readonly(),
  reason: z.string().nullable(),
  source: z.enum(NODE_SIGNAL_SOURCES).nullable(),
  replaceAt: z.number().nullable(),
});

export const clusterNodeSchema = z.object({
  name: z.string(),
  health: z.string(),
  ready: z.boolean(),
  gpus: z.number(),
  changedAt: z.number(),
  /** Absent from operators before the node-signal table. */
  verdict: nodeVerdictSchema.optional(),
});

/** One row of the restart timeline (dates as ISO strings on the wire). */
export const restartRecordSchema = z.object({
  id: z.string(),
  jobName: z.string(),
  namespace: z.string(),
  ranks: z.array(z.int()),
  pods: z.array(z.string()),
  node: z.string().nullable(),
  faultReason: z.string(),
  faultAt: z.iso.datetime(),
  detectedAt: z.iso.datetime(),
  action: z.string(),
  recoveredAt: z.iso.datetime().nullable(),
  outcome: z.string(),
  message: z.string(),
  /** Identical failures in a row without progress collapsed into this record (absent from older operators). */
  count: z.int().optional(),
  /** Of detected → recovered, ms spent waiting out a crash-loop back-off (absent from older operators). */
  waitMs: z.int().optional(),
  /** The policy in force when it ran (`<team>/<name> v<N>`); null: the job's own runPolicy. */
  policy: z.string().nullable().optional(),
  /**
   * Training progress around the fault (goodput, server/domain/goodput): the job's last step before it and
   * when, the step training restarted from, when progress was back. Null or absent: not recorded.
   */
  progress: z
    .object({
      progressStep: z.int().nullable(),
      progressAt: z.iso.datetime().nullable(),
      resumeStep: z.int().nullable(),
      resumedAt: z.iso.datetime().nullable(),
    })
    .nullable()
    .optional(),
});

/** The parts of the job object the console reads (the whole object is sent; other keys pass through). */
const jobObjectSchema = z.looseObject({
  spec: z.looseObject({
    runPolicy: z
      .looseObject({
        logMonitoringConfiguration: z
          .array(z.looseObject({ name: z.string(), logPattern: z.string().optional() }))
          .optional(),
      })
      .optional(),
  }),
});

/** A library policy as the job names it (issue 12): which policy, which version; the team when known. */
export const policyLabelSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  version: z.int().min(1),
  team: z.string().max(200).optional(),
});
export type PolicyLabel = z.infer<typeof policyLabelSchema>;

/** What a shadow rule set would have done, once (a ShadowVerdict row; `at` as an ISO string on the wire). */
export const shadowVerdictSchema = z.object({
  id: z.string(),
  pod: z.string(),
  rank: z.int(),
  rule: z.string(),
  state: z.string(),
  reason: z.string(),
  line: z.string().nullable(),
  wouldAction: z.string(),
  policy: z.string().nullable(),
  at: z.iso.datetime(),
});
export type ShadowVerdictRecord = z.infer<typeof shadowVerdictSchema>;

/**
 * The job's policy as the operator holds it: the object's version (for an apply's expectedVersion), the
 * library policy applied, the shadow, the latest verdicts, and whether the running attempt's agents
 * still watch other rules than the spec's (they take the new ones at the next restart).
 */
export const jobPolicyStateSchema = z.object({
  resourceVersion: z.string(),
  applied: policyLabelSchema.nullable(),
  appliedText: z.string().nullable(),
  shadow: z.object({ policy: policyLabelSchema.nullable(), rules: z.array(z.unknown()) }).nullable(),
  /** This run's latest shadow verdicts, newest first (kept after the shadow is removed or promoted). */
  verdicts: z.array(shadowVerdictSchema),
  pendingRestart: z.boolean(),
});
export type JobPolicyState = z.infer<typeof jobPolicyStateSchema>;

// ── answers ────────────────────────────────────────────────────────────────────────────────────────────
export const healthResponseSchema = z.object({ ok: z.boolean(), backend: z.enum(["local", "kubernetes"]) });
export const jobListResponseSchema = z.object({ jobs: z.array(liveJobSchema) });
export const jobDetailResponseSchema = z.object({
  job: jobObjectSchema,
  status: z.unknown(),
  live: liveJobSchema.nullable(),
  events: z.array(clusterEventSchema),
  restarts: z.array(restartRecordSchema),
  /** Absent from operators older than issue 12. */
  policy: jobPolicyStateSchema.optional(),
});
export const nodeListResponseSchema = z.object({ nodes: z.array(clusterNodeSchema) });
export const logsResponseSchema = z.object({ pod: z.string(), text: z.string() });
/** Where in the YAML, and what: a refused field (400) or one hyperpodrun would ignore or bend (a warning). */
export const jobSpecIssueSchema = z.object({
  path: z.string(),
  line: z.int().optional(),
  column: z.int().optional(),
  message: z.string(),
});
export const submitResponseSchema = jobRefSchema.extend({
  warnings: z.array(jobSpecIssueSchema).default([]),
});
export type SubmitResponse = z.input<typeof submitResponseSchema>;
export const deleteResponseSchema = z.object({ deleting: jobRefSchema });
/**
 * "Why is this job pending" from the operator's own admission (GET /api/v1/jobs/<ns>/<name>/why-pending):
 * `governed` false when the job is in no team queue, `answer` null when it is not pending. An operator whose
 * admission is Kueue's answers 501 (the console answers from its own snapshot).
 */
export const whyPendingResponseSchema = z.object({
  governed: z.boolean(),
  answer: z
    .object({
      key: z.string(),
      position: z.int(),
      reason: z.string(),
      shortfall: z.array(
        z.object({
          flavor: z.string(),
          resource: z.string(),
          need: z.number(),
          available: z.number(),
          missing: z.number(),
        }),
      ),
      ahead: z.array(z.string()),
      wouldRun: z.array(z.string()),
      text: z.string(),
    })
    .nullable(),
});
export type WhyPendingResponse = z.infer<typeof whyPendingResponseSchema>;
/** Every refusal: 4xx/5xx with a sentence; submit's 400 adds the field errors. */
export const errorResponseSchema = z.looseObject({ message: z.string() });

export type HealthResponse = z.infer<typeof healthResponseSchema>;
export type JobListResponse = z.infer<typeof jobListResponseSchema>;
export type JobDetailResponse = z.infer<typeof jobDetailResponseSchema>;
export type DeleteResponse = z.infer<typeof deleteResponseSchema>;
export type ActionResponse = z.infer<typeof actionResponseSchema>;
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
export type NodeListResponse = z.infer<typeof nodeListResponseSchema>;
export type LogsResponse = z.infer<typeof logsResponseSchema>;

// ── metrics history (the operator's embedded history, server/operator/history.ts) ─────────────────────
/** The job series a chart asks for (server/metrics/series.ts's JobSeriesName). */
export const historyJobSeriesSchema = z.enum([
  "loss",
  "throughput",
  "heartbeat_age",
  "ranks",
  "detection_latency",
  "restart_latency",
  "restarts",
]);
/** The cluster-wide series (summed or merged over the jobs of the namespaces asked for). */
export const historyClusterSeriesSchema = z.enum([
  "throughput",
  "restarts",
  "detection_latency",
  "restart_latency",
]);
const epochMs = z.coerce.number().int().min(0);
/** GET /api/v1/jobs/:ns/:name/history?series=&start=&end= (epoch ms; at most 24 h apart). */
export const jobHistoryQuerySchema = z.object({
  series: historyJobSeriesSchema,
  start: epochMs,
  end: epochMs,
});
/** GET /api/v1/history?series=&start=&end=[&namespace=a&namespace=b] (no namespace: every one the caller may list). */
export const clusterHistoryQuerySchema = z.object({
  series: historyClusterSeriesSchema,
  start: epochMs,
  end: epochMs,
  namespaces: z.array(z.string().min(1).max(63)).max(500).optional(),
});
export const historyResponseSchema = z.object({
  /** The step the points were averaged to (server/metrics/step.ts). */
  stepSeconds: z.number(),
  series: z.array(
    z.object({ name: z.string(), points: z.array(z.object({ t: z.number(), value: z.number() })) }),
  ),
});
export type HistoryResponse = z.infer<typeof historyResponseSchema>;
export type HistoryJobSeries = z.infer<typeof historyJobSeriesSchema>;
export type HistoryClusterSeries = z.infer<typeof historyClusterSeriesSchema>;

// ── requests ───────────────────────────────────────────────────────────────────────────────────────────
/** `by`: the person the caller acts for (the console sends its signed-in user), for the audit log. */
const by = z.string().min(1);
export const jobActionSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("restart-rank"), rank: z.int().min(0), by }),
  z.strictObject({ action: z.literal("restart-pod"), pod: z.string().min(1), by }),
  z.strictObject({ action: z.literal("restart-job"), by }),
  z.strictObject({ action: z.literal("suspend"), by }),
  z.strictObject({ action: z.literal("resume"), by }),
]);
export type JobAction = z.infer<typeof jobActionSchema>;
export const actionResponseSchema = z.object({ accepted: z.string() });

export const faultKindSchema = z.enum(["crash", "hang", "nan", "slow", "node"]);
export type FaultKind = z.infer<typeof faultKindSchema>;
/**
 * Who says a node fault (the local back end sets that source's fact on the node): HyperPod's health label
 * (the default), a signal of the node-signal table's sources, a cordon, or Ready=False.
 */
export const NODE_FAULT_SOURCES = [
  "hyperpod",
  "nvsentinel",
  "npd",
  "eks",
  "dcgm",
  "device-plugin",
  "cordon",
  "not-ready",
] as const;
export type NodeFaultSource = (typeof NODE_FAULT_SOURCES)[number];
export const injectFaultInputSchema = z
  .strictObject({
    kind: faultKindSchema,
    rank: z.int().min(0).optional(),
    source: z
      .enum(NODE_FAULT_SOURCES, { error: `expected one of ${NODE_FAULT_SOURCES.join(", ")}` })
      .optional(),
    by: z.string().min(1).max(256).optional(),
  })
  .refine((input) => input.source === undefined || input.kind === "node", {
    error: "a source goes with kind node only",
    path: ["source"],
  });
export type InjectFaultInput = z.infer<typeof injectFaultInputSchema>;
export const injectFaultResponseSchema = z.looseObject({ kind: faultKindSchema, rank: z.int() });

/**
 * PUT …/run-policy: replaces spec.runPolicy while the job is still at `expectedVersion` (its resourceVersion
 * as read); a stale one is refused (409) and nothing changes. `policy`: the library version it comes from.
 */
export const runPolicyUpdateSchema = z.strictObject({
  runPolicy: runPolicySchema,
  expectedVersion: z.string().min(1).max(64),
  policy: policyLabelSchema.nullable(),
  by: z.string().min(1).max(256),
});
export type RunPolicyUpdate = z.input<typeof runPolicyUpdateSchema>;
export const runPolicyUpdateResponseSchema = z.object({ resourceVersion: z.string() });

/** PUT …/shadow-policy: log rules watched on the running job without acting (null removes the shadow). */
export const shadowPolicyUpdateSchema = z.strictObject({
  rules: logMonitoringConfigurationSchema.nullable(),
  policy: policyLabelSchema.nullable(),
  by: z.string().min(1).max(256),
});
export type ShadowPolicyUpdate = z.input<typeof shadowPolicyUpdateSchema>;
export const shadowPolicyUpdateResponseSchema = z.object({ resourceVersion: z.string() });

// ── reading an answer ──────────────────────────────────────────────────────────────────────────────────
export class OperatorMismatchError extends Error {}

/**
 * Parses an answer of the operator with its schema, or throws OperatorMismatchError saying, in words, that
 * the operator speaks another version of this API, and where the answer differs.
 */
export function parseAnswer<T>(
  schema: z.ZodType<T>,
  answer: { body: unknown; version: string | null; what: string },
): T {
  if (answer.version !== null && answer.version !== OPERATOR_API_VERSION) {
    throw new OperatorMismatchError(
      `operator version mismatch: the operator speaks API version ${answer.version}, this console ${OPERATOR_API_VERSION}; upgrade the older of the two`,
    );
  }
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  throw new OperatorMismatchError(
    `operator version mismatch: its answer to ${answer.what} does not match this console (${where}: ${issue?.message ?? "invalid"}); upgrade the older of the two`,
  );
}
