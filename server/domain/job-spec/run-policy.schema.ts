import { z } from "zod";
import { logMonitoringRuleSchema } from "../log-rules/log-rule.schema";
import { nonNegativeIntSchema, positiveIntSchema } from "./common.schema";

/** `spec.runPolicy.restartPolicy` (docs/hyperpod-compatibility.md, "The job resource"). */
export const restartPolicySchema = z.strictObject({
  evalPeriodSeconds: positiveIntSchema,
  numRestartBeforeFullJobRestart: nonNegativeIntSchema.optional(),
  maxFullJobRestarts: nonNegativeIntSchema.optional(),
  maxNumRepeatOffendersToAvoid: nonNegativeIntSchema.optional(),
  scaleUpSnoozeTimeInSeconds: nonNegativeIntSchema.optional(),
});

export const CLEAN_POD_POLICIES = ["All", "OnlyComplete", "None"] as const;

export const cleanPodPolicySchema = z.enum(CLEAN_POD_POLICIES, {
  error: `expected one of ${CLEAN_POD_POLICIES.join(", ")}`,
});

/**
 * Rules a job may have. Every rule runs on every output line of a watched rank (in the agent, and in the
 * console's logs view), so the cost of a line grows with their number. HyperPod's examples have one to
 * five; a job that watches start, hang, loss, throughput, NaN, OOM, NCCL and Xid with a stop rule each is
 * about twenty. 32 leaves room for that and bounds the worst line at 32 × 2 patterns.
 */
export const MAX_LOG_RULES = 32;

/**
 * Accepted as hyperpodrun accepts it (duplicate names included: the agent runs both rules); what it would
 * ignore or bend comes back as warnings from rule-warnings.ts, see parse-job.ts. At most MAX_LOG_RULES
 * (hyperpodrun has no limit).
 */
export const logMonitoringConfigurationSchema = z
  .array(logMonitoringRuleSchema, { error: "expected a list of log monitoring rules" })
  .check(
    z.superRefine((rules, ctx) => {
      if (rules.length <= MAX_LOG_RULES) return;
      ctx.addIssue({
        code: "custom",
        message: `at most ${MAX_LOG_RULES} log monitoring rules per job (each runs on every output line); got ${rules.length}`,
        abort: true,
      });
    }),
  );

/** `spec.runPolicy` (docs/hyperpod-compatibility.md, "The job resource"). */
export const runPolicySchema = z.strictObject({
  cleanPodPolicy: cleanPodPolicySchema.default("All"),
  jobMaxRetryCount: nonNegativeIntSchema.optional(),
  restartPolicy: restartPolicySchema.optional(),
  logMonitoringConfiguration: logMonitoringConfigurationSchema.optional(),
  ttlSecondsAfterFinished: z
    .int({ error: "expected an integer (-1 keeps the job forever)" })
    .min(-1, { error: "expected -1 (keep forever) or a non-negative integer" })
    .optional(),
  activeDeadlineSeconds: positiveIntSchema.optional(),
  startupDeadlineSeconds: positiveIntSchema.optional(),
  faultDeadlineSeconds: positiveIntSchema.optional(),
  suspend: z.boolean({ error: "expected true or false" }).optional(),
  workloadMode: z
    .string({ error: "expected a string" })
    .min(1, { error: "expected a non-empty string" })
    .optional(),
});

export type RestartPolicy = z.infer<typeof restartPolicySchema>;
export type CleanPodPolicy = z.infer<typeof cleanPodPolicySchema>;
export type RunPolicy = z.infer<typeof runPolicySchema>;
