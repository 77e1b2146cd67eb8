import { z } from "zod";
import { MAX_POLICY_YAML_BYTES } from "@/server/domain/policy";
import { jobRefSchema } from "@/server/services/jobs/jobs.schema";

/**
 * The policies router's inputs (issue 12: the policy library, dry-run, apply and shadow mode) with messages
 * that name the field. The editor types against these; the server runs them again, then re-parses every
 * policy with parsePolicyYaml before it keeps or applies anything. Sizes are bounded here, before any YAML
 * or log text is parsed.
 */

// ── bounds ─────────────────────────────────────────────────────────────────────────────────────────────
/**
 * A policy is a runPolicy mapping: 32 rules of a few hundred characters each fit in 16 KiB, so 64 KiB
 * leaves room for comments and a pasted whole job YAML while keeping a parse cheap.
 */
export const MAX_POLICY_YAML_CHARS = MAX_POLICY_YAML_BYTES;
/** Log text for a dry-run: a few thousand lines, or one 100,000-character line, under the 1 MiB body bound. */
export const MAX_DRY_RUN_LOG_CHARS = 512 * 1024;

function sizeOf(chars: number): string {
  if (chars >= 1024 * 1024) return `${(chars / (1024 * 1024)).toFixed(1)} MB`;
  if (chars >= 1024) return `${Math.ceil(chars / 1024)} KB`;
  return `${chars} characters`;
}

/** A bounded text whose refusal says how big it was and what the bound is. */
function boundedText(what: { max: number; hint: string }) {
  return z.string({ error: "expected text" }).superRefine((text, ctx) => {
    if (text.length <= what.max) return;
    ctx.addIssue({
      code: "custom",
      message: `${sizeOf(text.length)} is over the limit of ${sizeOf(what.max)}: ${what.hint}`,
      abort: true,
    });
  });
}

// ── building blocks ────────────────────────────────────────────────────────────────────────────────────
/** The policy document: a runPolicy mapping in YAML (or a whole HyperPodPyTorchJob, its runPolicy taken). */
export const policyYamlSchema = boundedText({
  max: MAX_POLICY_YAML_CHARS,
  hint: "a policy is a runPolicy mapping (restartPolicy, logMonitoringConfiguration, …); paste logs into the dry-run instead",
});

export const policyIdSchema = z.uuid({ message: "expected a policy id" });

const policyVersionSchema = z
  .number({ error: "expected a version number (a whole number ≥ 1)" })
  .int({ message: "expected a version number (a whole number ≥ 1)" })
  .min(1, { message: "expected a version number (a whole number ≥ 1)" });

/** A policy's name, unique within its team, e.g. "hang and NaN (llama-70b)". */
export const policyNameSchema = z
  .string({ error: "expected a name" })
  .trim()
  .min(1, { message: "a name is required" })
  .max(80, { message: "at most 80 characters" })
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]+$/, { message: "no line breaks, tabs or control characters" });

const descriptionSchema = z.string({ error: "expected text" }).trim().max(500, {
  message: "at most 500 characters",
});

/** What changed and why, as a commit message: kept with the version. */
const messageSchema = z.string({ error: "expected text" }).trim().max(500, {
  message: "at most 500 characters",
});

/** The job's resourceVersion you read: a stale one is refused (CONFLICT). Compared for equality only. */
const resourceVersionSchema = z
  .string({ error: "expected the job's resourceVersion you read" })
  .min(1, { message: "expected the job's resourceVersion you read" })
  .max(64, { message: "at most 64 characters" });

// ── library ────────────────────────────────────────────────────────────────────────────────────────────
export const validatePolicyInputSchema = z.strictObject({ yaml: policyYamlSchema });
export type ValidatePolicyInput = z.input<typeof validatePolicyInputSchema>;

export const listPoliciesInputSchema = z
  .strictObject({ teamId: z.uuid({ message: "expected a team id" }).optional() })
  .default({});
export type ListPoliciesInput = z.input<typeof listPoliciesInputSchema>;

export const policyInputSchema = z.strictObject({ id: policyIdSchema });
export type PolicyInput = z.input<typeof policyInputSchema>;

export const policyVersionInputSchema = z.strictObject({ id: policyIdSchema, version: policyVersionSchema });
export type PolicyVersionInput = z.input<typeof policyVersionInputSchema>;

export const policyDiffInputSchema = z.strictObject({
  id: policyIdSchema,
  from: policyVersionSchema,
  to: policyVersionSchema,
});
export type PolicyDiffInput = z.input<typeof policyDiffInputSchema>;

export const createPolicyInputSchema = z.strictObject({
  teamId: z.uuid({ message: "expected a team id" }),
  name: policyNameSchema,
  description: descriptionSchema.default(""),
  yaml: policyYamlSchema,
  message: messageSchema.default(""),
});
export type CreatePolicyInput = z.input<typeof createPolicyInputSchema>;
export type CreatePolicy = z.output<typeof createPolicyInputSchema>;

export const savePolicyInputSchema = z.strictObject({
  id: policyIdSchema,
  yaml: policyYamlSchema,
  message: messageSchema.default(""),
  /** The version you edited: a newer one saved since is refused (CONFLICT) naming who saved it and when. */
  baseVersion: policyVersionSchema,
});
export type SavePolicyInput = z.input<typeof savePolicyInputSchema>;
export type SavePolicy = z.output<typeof savePolicyInputSchema>;

// ── dry-run ────────────────────────────────────────────────────────────────────────────────────────────
export const dryRunSourceSchema = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({
      kind: z.literal("text"),
      text: boundedText({
        max: MAX_DRY_RUN_LOG_CHARS,
        hint: "dry-run a shorter excerpt (the lines around the fault)",
      }),
      /** Spacing of lines without timestamps on the simulated clock (ms). */
      intervalMs: z
        .int({ message: "expected whole milliseconds" })
        .min(1, { message: "expected at least 1 ms between lines" })
        .max(3_600_000, { message: "at most one hour between lines" })
        .optional(),
    }),
    z.strictObject({
      kind: z.literal("rank"),
      namespace: jobRefSchema.shape.namespace,
      name: jobRefSchema.shape.name,
      /** Its output since its attempt started is read, each line at the time it arrived. */
      rank: z.int({ message: "expected a rank (a whole number ≥ 0)" }).min(0).max(1_000_000),
    }),
  ],
  { error: "expected source kind text or rank" },
);
export type DryRunSource = z.input<typeof dryRunSourceSchema>;

export const dryRunInputSchema = z.strictObject({
  yaml: policyYamlSchema,
  source: dryRunSourceSchema,
  /** Whose restart history decides `nextAction` (a rank source's job when absent). */
  job: jobRefSchema.optional(),
});
export type DryRunInput = z.input<typeof dryRunInputSchema>;

// ── a job's policy ─────────────────────────────────────────────────────────────────────────────────────
export const forJobInputSchema = jobRefSchema;
export type ForJobInput = z.input<typeof forJobInputSchema>;

export const applyPolicyInputSchema = jobRefSchema.extend({
  policyId: policyIdSchema,
  version: policyVersionSchema,
  expectedVersion: resourceVersionSchema,
});
export type ApplyPolicyInput = z.input<typeof applyPolicyInputSchema>;

export const setShadowInputSchema = jobRefSchema.extend({
  /** null: detach the shadow rule set. */
  shadow: z.strictObject({ policyId: policyIdSchema, version: policyVersionSchema }).nullable(),
});
export type SetShadowInput = z.input<typeof setShadowInputSchema>;

export const promoteShadowInputSchema = jobRefSchema.extend({ expectedVersion: resourceVersionSchema });
export type PromoteShadowInput = z.input<typeof promoteShadowInputSchema>;

// ── answers ────────────────────────────────────────────────────────────────────────────────────────────
/** A library version as a job names it; `team`: the policy's team. */
export type PolicyRef = { id: string; name: string; version: number; team?: string };
export type VersionSummary = { version: number; author: string; createdAt: Date; message: string };

export type PolicyListItem = {
  id: string;
  name: string;
  description: string;
  team: { id: string; name: string };
  latest: VersionSummary;
  /** Whether the signed-in user may save new versions (the team's engineers and admins, cluster admins). */
  canEdit: boolean;
};

export type PolicyView = {
  id: string;
  name: string;
  description: string;
  team: { id: string; name: string };
  canEdit: boolean;
  /** Newest first. */
  versions: VersionSummary[];
  latest: { version: number; yaml: string };
};

export type PolicyVersionView = VersionSummary & { yaml: string };

export type ApplyResult = { resourceVersion: string; takesEffect: string };

// ── audit ──────────────────────────────────────────────────────────────────────────────────────────────
/** Policy audit entries of the user's teams (all for a cluster admin), of one team, or of one job. */
export const policyAuditInputSchema = z
  .strictObject({
    teamId: z.uuid({ message: "expected a team id" }).optional(),
    job: jobRefSchema.optional(),
    limit: z.int().min(1).max(500, { message: "at most 500 entries" }).default(100),
  })
  .default({ limit: 100 });
export type PolicyAuditInput = z.input<typeof policyAuditInputSchema>;
