import { createTRPCRouter } from "@/server/api/trpc";
import {
  assignableRoles,
  canAddMembers,
  canEditMembers,
  canReadGovernance,
  canRemoveMember,
  canSetRole,
} from "@/server/domain/access/governance";
import { isClusterAdmin } from "@/server/domain/access/roles";
import {
  type MembersView,
  removeMemberInputSchema,
  setRoleInputSchema,
  teamInputSchema,
} from "@/server/services/governance/governance.schema";
import { listMembers, removeMember, setMemberRole, teamAdminCount } from "@/server/services/teams/members";
import { forbidden, governanceProcedure, teamIdByName } from "./procedure";

/**
 * A team's members: its members and cluster admins read them; its team admins and cluster admins set roles
 * and remove members (a team admin never the team's last team admin); only cluster admins add users who are
 * not members yet (no invitation flow exists: no user is created but the seeded ones and the first admin).
 * Every rule is server/domain/access/governance.ts, asked here and again inside the service's transaction.
 */
export const membersRouter = createTRPCRouter({
  list: governanceProcedure.input(teamInputSchema).query(async ({ ctx, input }): Promise<MembersView> => {
    const teamId = await teamIdByName(ctx.db, input.team);
    const { memberships } = ctx.user;
    if (!canReadGovernance(memberships, teamId)) forbidden(`only members of ${input.team} see its members`);
    const { members } = await listMembers(ctx.db, input.team);
    // A team admin may not take the team's last team admin away; a cluster admin may (services/teams/members.ts).
    const lastAdmin = teamAdminCount(members) === 1 && !isClusterAdmin(memberships);
    return {
      team: input.team,
      members: members.map((member) => ({
        ...member,
        canChange: canSetRole(memberships, { teamId, from: member.role, to: "viewer" }),
        canRemove:
          canRemoveMember(memberships, { teamId, role: member.role }) &&
          !(lastAdmin && member.role === "team_admin"),
      })),
      canEdit: canEditMembers(memberships, teamId),
      canAdd: canAddMembers(memberships),
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
      actorIsClusterAdmin: isClusterAdmin(memberships),
    });
  }),

  remove: governanceProcedure.input(removeMemberInputSchema).mutation(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    const { memberships } = ctx.user;
    if (!canEditMembers(memberships, teamId)) {
      forbidden(`only a team admin of ${input.team} or a cluster admin may remove its members`);
    }
    return removeMember(ctx.db, {
      ...input,
      actorId: ctx.user.id,
      allowed: (role) => canRemoveMember(memberships, { teamId, role }),
      actorIsClusterAdmin: isClusterAdmin(memberships),
    });
  }),
});
