import { z } from "zod";
import { nonNegativeIntSchema, positiveIntSchema } from "./common.schema";

/** `spec.elasticPolicy` (reference 1.7). Cross-field rules follow the HyperPod CLI's own checks. */
export const elasticPolicySchema = z
  .strictObject({
    minReplicas: positiveIntSchema,
    maxReplicas: positiveIntSchema,
    replicaIncrementStep: positiveIntSchema.optional(),
    replicaDiscreteValues: z
      .array(positiveIntSchema, { error: "expected a list of positive integers" })
      .min(1, { error: "expected at least one value" })
      .optional(),
    scalingTimeoutInSeconds: nonNegativeIntSchema.optional(),
    gracefulShutdownTimeoutInSeconds: nonNegativeIntSchema.optional(),
    faultyScaleDownTimeoutInSeconds: nonNegativeIntSchema.optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.minReplicas > policy.maxReplicas) {
      ctx.addIssue({
        code: "custom",
        path: ["minReplicas"],
        message: `minReplicas (${policy.minReplicas}) must not exceed maxReplicas (${policy.maxReplicas})`,
      });
    }
    if (policy.replicaIncrementStep !== undefined && policy.replicaDiscreteValues !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["replicaDiscreteValues"],
        message: "replicaIncrementStep and replicaDiscreteValues are mutually exclusive; set only one",
      });
    }
    (policy.replicaDiscreteValues ?? []).forEach((value, index) => {
      if (value > policy.maxReplicas) {
        ctx.addIssue({
          code: "custom",
          path: ["replicaDiscreteValues", index],
          message: `value ${value} exceeds maxReplicas (${policy.maxReplicas})`,
        });
      }
    });
  });

export type ElasticPolicy = z.infer<typeof elasticPolicySchema>;
