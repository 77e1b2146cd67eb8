import { z } from "zod";
import { logMonitoringRuleSchema } from "@/server/domain/log-rules/log-rule.schema";

/**
 * The operator ⇄ agent HTTP contract (docs/hyperpod-compatibility.md, "The agent protocol"), shared by the
 * agent (request bodies) and the operator's client (status answers). Key names are exactly the HyperPod
 * agent's, mixed camelCase and snake_case included. Unknown request keys are ignored (as pydantic does); the
 * status schema keeps unknown keys so answers of the unmodified HyperPod agent parse too.
 */

export const AGENT_VERSION = "1.1.0";
export const RESTART_MODE = "process_level_restart";

const nonNegativeInt = z.int({ error: "expected an integer" }).min(0, { error: "expected an integer >= 0" });

const PORT_EXPECTED = "expected a port number (an integer or a numeric string)";
const masterPortSchema = z
  .union([z.int({ error: PORT_EXPECTED }), z.string().regex(/^[0-9]{1,5}$/, { error: PORT_EXPECTED })], {
    error: PORT_EXPECTED,
  })
  .transform(Number)
  .pipe(z.int().min(1, { error: "expected a port from 1 to 65535" }).max(65_535));

const SPARE_TRUE: readonly unknown[] = [true, 1, "1", "true", "True"];

/** pydantic-style lax bool: true/false, 0/1 and their string forms. */
export const spareSchema = z
  .union([z.boolean(), z.literal([0, 1]), z.enum(["0", "1", "true", "false", "True", "False"])], {
    error: "expected true, false, 0 or 1",
  })
  .transform((value) => SPARE_TRUE.includes(value));

export const rankIpSchema = z.looseObject({ ip: z.string(), rank: nonNegativeInt });

export const workerDataSchema = z.looseObject({
  rank: z.int().optional(),
  group_rank: z.int().optional(),
  local_rank: z.int().optional(),
  data: z.unknown().optional(),
});

/** As hyperpodrun reads it: rules it would ignore parts of are accepted (the agent logs warnings). */
export const logMonitoringConfigurationSchema = z.array(logMonitoringRuleSchema, {
  error: "expected a list of log monitoring rules",
});

const rendezvousShape = {
  rank: nonNegativeInt,
  nnodes: z.int({ error: "expected an integer" }).min(1, { error: "expected an integer >= 1" }),
  faultCount: nonNegativeInt,
  master_addr: z
    .string({ error: "expected a string" })
    .refine((addr) => addr.trim().length > 0, { error: "Empty master_addr received from operator" }),
  master_port: masterPortSchema,
  log_monitoring_configuration: logMonitoringConfigurationSchema.nullish(),
  ipVersion: z.string().nullish(),
  rankIps: z.array(rankIpSchema).nullish(),
  worker_data: z.array(workerDataSchema).nullish(),
  spare: spareSchema.nullish(),
};

export const startRequestSchema = z.object({
  ...rendezvousShape,
  progress: z.record(z.string(), z.unknown()).nullish(),
});
export type StartRequest = z.output<typeof startRequestSchema>;
/** What a client sends (master_port may be a string, spare may be 0/1). */
export type StartRequestInput = z.input<typeof startRequestSchema>;

export const updateRequestSchema = z.object(rendezvousShape);
export type UpdateRequest = z.output<typeof updateRequestSchema>;
export type UpdateRequestInput = z.input<typeof updateRequestSchema>;

/** `/stop`'s optional body. `restart_mode` is accepted and ignored: this agent always kills its workers. */
export const stopRequestSchema = z.object({
  restart_mode: z.string().nullish(),
  is_graceful: z.boolean({ error: "expected true or false" }).nullish(),
  timeout: nonNegativeInt.nullish(),
});
export type StopRequest = z.output<typeof stopRequestSchema>;

export const AGENT_STATUS_NAMES = [
  "init",
  "ready",
  "running",
  "completed",
  "faulted",
  "stopping",
  "shutdown",
] as const;
export const agentStatusNameSchema = z.enum(AGENT_STATUS_NAMES);
export type AgentStatusName = z.infer<typeof agentStatusNameSchema>;

/** JSON has no NaN/Infinity: non-finite numbers travel as "nan", "inf", "-inf". */
export const jsonFloatSchema = z.union([z.number(), z.enum(["nan", "inf", "-inf"])]);
export type JsonFloat = z.infer<typeof jsonFloatSchema>;

export function encodeJsonFloat(value: number): JsonFloat {
  if (Number.isNaN(value)) return "nan";
  if (value === Number.POSITIVE_INFINITY) return "inf";
  return value === Number.NEGATIVE_INFINITY ? "-inf" : value;
}

export function decodeJsonFloat(value: JsonFloat): number {
  if (value === "nan") return Number.NaN;
  if (value === "inf") return Number.POSITIVE_INFINITY;
  return value === "-inf" ? Number.NEGATIVE_INFINITY : value;
}

export const RANK_RUN_STATES = ["starting", "running", "exited", "crashed", "stopped"] as const;
export const rankRunStateSchema = z.enum(RANK_RUN_STATES);
export type RankRunState = z.infer<typeof rankRunStateSchema>;

export const logStateSchema = z.enum(["WAITING", "HEALTHY", "SLOW", "HANGING", "FAULTED"]);

/** One local rank in `/status.ranks` (Rebound's extension; every key always present, null when unknown). */
export const rankStatusSchema = z.object({
  local_rank: z.int(),
  rank: z.int(),
  pid: z.int().nullable(),
  state: rankRunStateSchema,
  exit_code: z.int().nullable(),
  signal: z.string().nullable(),
  last_line: z.string().nullable(),
  last_line_at: z.string().nullable(),
  step: z.int().nullable(),
  loss: jsonFloatSchema.nullable(),
  throughput: jsonFloatSchema.nullable(),
  rule_states: z.record(z.string(), logStateSchema),
  rule_metrics: z.record(z.string(), jsonFloatSchema.nullable()),
  restarts: z.int(),
  /**
   * Added later (optional: older agents omit them). suspect: running, printed, then
   * silent past the rules' shortest recurring window — reported, not a fault; suspect_since: when.
   */
  suspect: z.boolean().optional(),
  suspect_since: z.string().nullable().optional(),
  /** Whether this rank's log rules can fault the job (local rank 0 unless the agent opts in to all). */
  log_watched: z.boolean().optional(),
  /**
   * Rebound's progress facts (optional: older agents omit them), for the console's "no progress for N s":
   * when the rank last printed a progress line (server/domain/log-rules/progress.ts), null before one, and
   * its usual interval between them in ms (the median of recent gaps), null until known.
   */
  last_progress_at: z.string().nullable().optional(),
  progress_interval_ms: z.int().min(0).nullable().optional(),
});
export type RankStatus = z.infer<typeof rankStatusSchema>;

/** `GET /status` (also the body of every POST answer). Keys are present only when set. */
export const agentStatusSchema = z.looseObject({
  status: agentStatusNameSchema,
  transitions: z.record(z.string(), z.string()).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  restartMode: z.string().optional(),
  ipversion: z.string().optional(),
  progress: z.record(z.string(), z.unknown()).optional(),
  agent_version: z.string().optional(),
  assigned_rank: z.string().optional(),
  spare: z.string().optional(),
  priority: z.string().optional(),
  worker_data: z.unknown().optional(),
  rank_labels: z.unknown().optional(),
  /** Rebound: per local rank detail. */
  ranks: z.array(rankStatusSchema).optional(),
  /** Rebound: when the fault happened (ISO, `+00:00`), e.g. the crashed worker's exit time. */
  fault_at: z.string().optional(),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

/** FastAPI's error bodies: 422 `{detail: [{type, loc, msg}]}`; 404/405/409/413 `{detail: "…"}`. */
export const validationIssueSchema = z.object({
  type: z.string(),
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
});
export type ValidationIssue = z.infer<typeof validationIssueSchema>;
export const errorBodySchema = z.object({ detail: z.union([z.string(), z.array(validationIssueSchema)]) });
export type ErrorBody = z.infer<typeof errorBodySchema>;
