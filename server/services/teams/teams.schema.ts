import { z } from "zod";

/** Team names follow HyperPod task governance: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 40 characters. */
export const teamNameSchema = z
  .string()
  .min(1, { message: "a team name is required" })
  .max(40, { message: "at most 40 characters" })
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
    message: "lower-case letters, digits and '-', starting and ending with a letter or digit",
  });

export const createTeamInputSchema = z.strictObject({
  name: teamNameSchema,
  displayName: z.string().trim().min(1, { message: "a display name is required" }).max(80),
  guaranteedGpus: z.number().int({ message: "expected a whole number of GPUs" }).min(0).max(100_000),
  /** Create the team even though its guaranteed GPUs over-commit the cluster (as governance.quota.update). */
  allowOvercommit: z.boolean({ error: "expected true or false" }).optional(),
});
export type CreateTeamInput = z.infer<typeof createTeamInputSchema>;

export const listTeamsInputSchema = z.strictObject({}).optional();
