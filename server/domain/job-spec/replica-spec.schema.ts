import { z } from "zod";
import { dnsLabelSchema, nonNegativeIntSchema, stringMapSchema } from "./common.schema";

/**
 * Kubernetes PodTemplateSpec, validated loosely: the API server validates pods; we only require what the
 * operator itself reads (container names) and pass everything else through unchanged.
 */
export const containerSchema = z.looseObject({
  name: z.string({ error: "expected a container name" }).min(1, { error: "expected a container name" }),
});

export const podTemplateSchema = z.looseObject({
  metadata: z
    .looseObject({ labels: stringMapSchema.optional(), annotations: stringMapSchema.optional() })
    .optional(),
  spec: z.looseObject({
    containers: z
      .array(containerSchema, { error: "expected a list of containers" })
      .min(1, { error: "expected at least one container" }),
  }),
});

export const replicaSpecSchema = z
  .strictObject({
    /** Pod names are `<job>-<name>-<index>`, so the name must be usable in a DNS label. */
    name: dnsLabelSchema,
    replicas: nonNegativeIntSchema.default(0),
    maxReplicas: nonNegativeIntSchema.optional(),
    spares: nonNegativeIntSchema.default(0),
    template: podTemplateSchema,
  })
  .superRefine((spec, ctx) => {
    if (spec.maxReplicas !== undefined && spec.maxReplicas < spec.replicas) {
      ctx.addIssue({
        code: "custom",
        path: ["maxReplicas"],
        message: `maxReplicas (${spec.maxReplicas}) must be at least replicas (${spec.replicas})`,
      });
    }
  });

export type Container = z.infer<typeof containerSchema>;
export type PodTemplate = z.infer<typeof podTemplateSchema>;
export type ReplicaSpec = z.infer<typeof replicaSpecSchema>;
export type ReplicaSpecInput = z.input<typeof replicaSpecSchema>;
