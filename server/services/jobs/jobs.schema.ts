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

/** A pod's name: a DNS-1123 subdomain (Kubernetes' rule for pod names). */
const podNameSchema = z
  .string()
  .max(253, { error: "expected a pod name of at most 253 characters" })
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: "expected a pod name (DNS-1123: a-z, 0-9, '-', '.')" });

/**
 * Whose log: a rank of the job (the console finds its pod), or one of the job's pods with a local rank.
 * The router refuses a rank or pod the job does not have (server/services/jobs/log-target.ts).
 */
export const jobLogsInputSchema = z
  .strictObject({
    job: jobRefSchema,
    rank: z.int().min(0).max(1_000_000).optional(),
    pod: podNameSchema.optional(),
    localRank: z.int().min(0).max(1023).optional(),
    tail: z.int().min(1).max(2000).default(200),
  })
  .superRefine((input, ctx) => {
    if (input.rank !== undefined && input.pod !== undefined) {
      ctx.addIssue({ code: "custom", path: ["pod"], message: "name a rank or a pod, not both" });
    } else if (input.rank === undefined && input.pod === undefined) {
      ctx.addIssue({ code: "custom", path: ["pod"], message: "name a rank or one of the job's pods" });
    } else if (input.pod !== undefined && input.localRank === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["localRank"],
        message: "expected the local rank whose log to read",
      });
    }
  });

// ── outputs ────────────────────────────────────────────────────────────────────────────────────────────
const restartCountsSchema = z.object({ plr: z.int(), podReplacement: z.int(), jlr: z.int() });

export const jobRowSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  team: z.string().nullable(),
  status: z.string(),
  phase: z.string(),
  priorityClass: z.string().nullable(),
  gpus: z.number(),
  ranksHealthy: z.int(),
  ranksTotal: z.int(),
  restarts: restartCountsSchema,
  createdAt: z.number(),
  reason: z.string().nullable().optional(),
  backOffUntil: z.number().nullable().optional(),
});

export const jobAccessOutputSchema = z.object({
  canAct: z.boolean(),
  mode: z.enum(["local", "kubernetes", "console-only"]),
});

export const logLineSchema = z.object({ text: z.string(), matches: z.array(z.string()) });

export const jobActOutputSchema = z.object({ ok: z.literal(true) });
