import { z } from "zod";

const name = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: "expected a Kubernetes name" });

export const jobRefSchema = z.strictObject({ namespace: name, name });

export const jobActionSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("restart-rank"), rank: z.int().min(0) }),
  z.strictObject({ action: z.literal("restart-pod"), pod: z.string().min(1).max(253) }),
  z.strictObject({ action: z.literal("restart-job") }),
  z.strictObject({ action: z.literal("suspend") }),
  z.strictObject({ action: z.literal("resume") }),
  z.strictObject({ action: z.literal("delete") }),
  z.strictObject({
    action: z.literal("inject-fault"),
    kind: z.enum(["crash", "hang", "nan", "slow", "node"]),
    rank: z.int().min(0).optional(),
  }),
]);

export const jobActInputSchema = z.strictObject({ job: jobRefSchema, input: jobActionSchema });

export const jobLogsInputSchema = z.strictObject({
  job: jobRefSchema,
  pod: z.string().min(1).max(253),
  localRank: z.int().min(0).max(1023),
  tail: z.int().min(1).max(2000).default(200),
});

export const jobMetricsInputSchema = z.strictObject({
  job: jobRefSchema,
  rank: z.int().min(0).nullable(),
  windowMs: z
    .int()
    .min(60_000)
    .max(7 * 24 * 3600 * 1000)
    .default(15 * 60 * 1000),
});
