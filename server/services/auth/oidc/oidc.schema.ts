import { z } from "zod";

/** The most group mappings kept: each is read at every sign-in. */
export const MAX_GROUP_MAPPINGS = 500;

export const groupNameSchema = z
  .string()
  .trim()
  .min(1, "name the identity provider's group, as its groups claim lists it")
  .max(256, "at most 256 characters");

/**
 * A new rule: members of `group` get a role on a team (viewer, engineer or team admin), or are cluster
 * admins (`kind: "cluster_admin"`, no team).
 */
export const createGroupMappingInputSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({
      kind: z.literal("team"),
      group: groupNameSchema,
      teamId: z.uuid({ error: "expected a team id" }),
      role: z.enum(["viewer", "engineer", "team_admin"], {
        error: "expected viewer, engineer or team_admin",
      }),
    }),
    z.object({ kind: z.literal("cluster_admin"), group: groupNameSchema }),
  ],
  { error: 'expected kind "team" or "cluster_admin"' },
);
export type CreateGroupMappingInput = z.infer<typeof createGroupMappingInputSchema>;

export const deleteGroupMappingInputSchema = z.object({ id: z.uuid({ error: "expected a mapping id" }) });

export type GroupMappingView = {
  id: string;
  group: string;
  /** null: cluster-wide (cluster admin). */
  team: { id: string; name: string } | null;
  role: "viewer" | "engineer" | "team_admin" | "cluster_admin";
  createdAt: Date;
};

export type SsoStatus = {
  /** Single sign-on is configured (REBOUND_OIDC_ISSUER …), and the name on its button. */
  enabled: boolean;
  providerName: string | null;
  localPasswords: boolean;
  groupsClaim: string | null;
};
