import { z } from "zod";

/**
 * `status` (docs/hyperpod-compatibility.md, "The job resource"). Lenient: other operators (AWS's, Kueue)
 * write it, so unknown keys pass through, condition types and restart types stay open-ended, and only the
 * shapes the console reads are checked.
 */

const intSchema = z.int({ error: "expected an integer" });
const timestampSchema = z.string({ error: "expected an RFC 3339 timestamp" });
const stringListSchema = z.array(z.string());

export const objectReferenceSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
});

export const jobConditionSchema = z.looseObject({
  /** Observed: Created, PodsRunning, Running, Suspended; terminal Completed / Failed. Kept open-ended. */
  type: z.string({ error: "expected a condition type" }),
  status: z.enum(["True", "False", "Unknown"], { error: "expected True, False or Unknown" }),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: timestampSchema.optional(),
  lastProbeTime: timestampSchema.optional(),
});

/**
 * All three counters are required when the object is present
 * (docs/hyperpod-compatibility.md, "The job resource").
 */
export const restartStatusSchema = z.looseObject({
  currentEvalPeriod: intSchema,
  fullJobRestartCount: intSchema,
  restartCount: intSchema,
});

export const latestFaultyPodInstanceListSchema = z.looseObject({
  /** "PLR" (process-level restart) or "JLR" (job-level restart). */
  restartType: z.string().optional(),
  faultyInstanceIdList: stringListSchema.optional(),
  faultyPodList: stringListSchema.optional(),
  faultyRankList: z.array(z.union([z.string(), z.number()])).optional(),
});

export const podSetSchema = z.looseObject({
  name: z.string().default("main"),
  count: intSchema.optional(),
  minCount: intSchema.optional(),
  template: z.unknown().optional(),
});

export const podSetInfoSchema = z.looseObject({
  annotations: z.record(z.string(), z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(z.unknown()).optional(),
});

export const elasticScalingStatusSchema = z.looseObject({
  targetReplicas: z.record(z.string(), intSchema).optional(),
  lastUpdated: timestampSchema.optional(),
  lastScalingTime: timestampSchema.optional(),
  lastRestartTime: timestampSchema.optional(),
  podsScaled: z.boolean().optional(),
  isFaultyPodScaleDown: z.boolean().optional(),
  consecutiveScalingFailures: intSchema.optional(),
});

export const jobStatusSchema = z.looseObject({
  conditions: z.array(jobConditionSchema).optional(),
  startTime: timestampSchema.optional(),
  completionTime: timestampSchema.optional(),
  restartCount: intSchema.optional(),
  restartStatus: restartStatusSchema.optional(),
  latestFaultyPodInstanceList: latestFaultyPodInstanceListSchema.optional(),
  jobPods: z.array(objectReferenceSchema).optional(),
  managerPods: z.union([objectReferenceSchema, z.array(objectReferenceSchema)]).optional(),
  podManagerStatuses: z.array(objectReferenceSchema).optional(),
  masterAddr: z.string().optional(),
  masterPort: z.union([z.string(), z.number()]).optional(),
  podSets: z.array(podSetSchema).optional(),
  podSetInfos: z.array(podSetInfoSchema).optional(),
  elasticScalingStatus: elasticScalingStatusSchema.optional(),
  elasticWorkloadRef: z.record(z.string(), z.string()).optional(),
});

export type ObjectReference = z.infer<typeof objectReferenceSchema>;
export type JobCondition = z.infer<typeof jobConditionSchema>;
export type RestartStatus = z.infer<typeof restartStatusSchema>;
export type LatestFaultyPodInstanceList = z.infer<typeof latestFaultyPodInstanceListSchema>;
export type PodSet = z.infer<typeof podSetSchema>;
export type ElasticScalingStatus = z.infer<typeof elasticScalingStatusSchema>;
export type JobStatus = z.infer<typeof jobStatusSchema>;
