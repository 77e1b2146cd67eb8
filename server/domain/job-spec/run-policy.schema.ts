import { z } from "zod";
import { logMonitoringRuleSchema } from "../log-rules/log-rule.schema";
import { nonNegativeIntSchema, positiveIntSchema } from "./common.schema";

/** `spec.runPolicy.restartPolicy` (reference 1.5). */
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
 * Accepted as hyperpodrun accepts it (duplicate names included: the agent runs both rules); what it would
 * ignore or bend comes back as warnings from rule-warnings.ts, see parse-job.ts.
 */
export const logMonitoringConfigurationSchema = z.array(logMonitoringRuleSchema, {
  error: "expected a list of log monitoring rules",
});

/** `spec.runPolicy` (reference 1.4). */
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
