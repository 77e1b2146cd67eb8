import { z } from "zod";
import { nonNegativeIntSchema, positiveIntSchema } from "./common.schema";

/**
 * `spec.elasticPolicy` (docs/hyperpod-compatibility.md, "Elastic training"). Cross-field rules follow the
 * HyperPod CLI's own checks. `minReplicas` is optional, as in HyperPod's CLI model: absent, it is the job's
 * replica count (what HyperPod's CLI writes), filled in by `withDefaultMinReplicas` once the replica specs
 * are known.
 */
export const elasticPolicySchema = z
  .strictObject({
    minReplicas: positiveIntSchema.optional(),
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
    if (policy.minReplicas !== undefined && policy.minReplicas > policy.maxReplicas) {
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

/** After parsing, `minReplicas` is always set (withDefaultMinReplicas). */
export type ElasticPolicy = z.infer<typeof elasticPolicySchema> & { minReplicas: number };

/**
 * Fills an absent `elasticPolicy.minReplicas` with the sum of the replica specs' `replicas` (HyperPod's CLI
 * sets minReplicas = replicas), and refuses a default that would exceed `maxReplicas`.
 */
export function withDefaultMinReplicas<
  T extends { replicaSpecs: { replicas: number }[]; elasticPolicy?: z.infer<typeof elasticPolicySchema> },
>(spec: T, ctx: z.RefinementCtx): Omit<T, "elasticPolicy"> & { elasticPolicy?: ElasticPolicy } {
  const policy = spec.elasticPolicy;
  if (policy === undefined || policy.minReplicas !== undefined) {
    return spec as Omit<T, "elasticPolicy"> & { elasticPolicy?: ElasticPolicy };
  }
  const replicas = spec.replicaSpecs.reduce((sum, replicaSpec) => sum + replicaSpec.replicas, 0);
  if (replicas > policy.maxReplicas) {
    ctx.addIssue({
      code: "custom",
      path: ["elasticPolicy", "minReplicas"],
      message: `minReplicas defaults to replicas (${replicas}), which exceeds maxReplicas (${policy.maxReplicas}); set minReplicas or raise maxReplicas`,
    });
  }
  return { ...spec, elasticPolicy: { ...policy, minReplicas: Math.max(1, replicas) } };
}
