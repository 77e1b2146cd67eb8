import { createTRPCRouter } from "@/server/api/trpc";
import {
  assignableRoles,
  canEditMembers,
  canReadGovernance,
  canSetRole,
} from "@/server/domain/access/governance";
import { listMembers, setMemberRole } from "@/server/services/teams/members";
import { type MembersView, setRoleInputSchema, teamInputSchema } from "./governance.schema";
import { forbidden, governanceProcedure, teamIdByName } from "./procedure";

/** A team's members: its members and cluster admins read them; its team admins and cluster admins set roles. */
export const membersRouter = createTRPCRouter({
  list: governanceProcedure.input(teamInputSchema).query(async ({ ctx, input }): Promise<MembersView> => {
    const teamId = await teamIdByName(ctx.db, input.team);
    const { memberships } = ctx.user;
    if (!canReadGovernance(memberships, teamId)) forbidden(`only members of ${input.team} see its members`);
    const { members } = await listMembers(ctx.db, input.team);
    return {
      team: input.team,
      members: members.map((member) => ({
        ...member,
        canChange: canSetRole(memberships, { teamId, from: member.role, to: "viewer" }),
      })),
      canEdit: canEditMembers(memberships, teamId),
      assignable: [...assignableRoles(memberships, teamId)],
    };
  }),

  setRole: governanceProcedure.input(setRoleInputSchema).mutation(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    const { memberships } = ctx.user;
    if (!canEditMembers(memberships, teamId)) {
      forbidden(`only a team admin of ${input.team} or a cluster admin may change its members' roles`);
    }
    return setMemberRole(ctx.db, {
      ...input,
      actorId: ctx.user.id,
      allowed: (from) => canSetRole(memberships, { teamId, from, to: input.role }),
    });
  }),
});
