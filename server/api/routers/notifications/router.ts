import { forbidden, teamIdByName } from "@/server/api/routers/governance/procedure";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import type { Db } from "@/server/db/client";
import { canEditMembers, canReadGovernance } from "@/server/domain/access/governance";
import type { Membership } from "@/server/domain/access/roles";
import { createLogger } from "@/server/log";
import {
  auditTestSend,
  createChannel,
  deleteChannel,
  removeSubscription,
  setSubscription,
} from "@/server/services/notifications/mutations";
import {
  channelInputSchema,
  createChannelInputSchema,
  type DeliveryView,
  deliveriesInputSchema,
  type NotificationsView,
  removeSubscriptionInputSchema,
  setSubscriptionInputSchema,
  teamInputSchema,
} from "@/server/services/notifications/notifications.schema";
import { ensureNotifier } from "@/server/services/notifications/notifier";
import { listChannels, listDeliveries } from "@/server/services/notifications/queries";

const notifierLog = createLogger({ service: "rebound-console", component: "notifications" });

/**
 * A team's notification channels, subscriptions and delivery log (issue 38). The rules are the team
 * settings' own (server/domain/access/governance.ts): its team admins and cluster admins edit (the rule of
 * the team's members), its members read; no view carries a channel's URL. Every change is audited by the
 * service, in the change's transaction.
 */
const notificationsProcedure = protectedProcedure.use(({ ctx, next }) => {
  ensureNotifier({ db: ctx.db, log: notifierLog });
  return next();
});

async function authorize(db: Db, memberships: readonly Membership[], team: string, edit: boolean) {
  const teamId = await teamIdByName(db, team);
  if (!canReadGovernance(memberships, teamId)) forbidden(`only members of ${team} see its notifications`);
  const canEdit = canEditMembers(memberships, teamId);
  if (edit && !canEdit)
    forbidden(`only a team admin of ${team} or a cluster admin may change its notifications`);
  return canEdit;
}

export const notificationsRouter = createTRPCRouter({
  get: notificationsProcedure
    .input(teamInputSchema)
    .query(async ({ ctx, input }): Promise<NotificationsView> => {
      const canEdit = await authorize(ctx.db, ctx.user.memberships, input.team, false);
      return { team: input.team, canEdit, channels: await listChannels(ctx.db, input.team) };
    }),

  deliveries: notificationsProcedure
    .input(deliveriesInputSchema)
    .query(async ({ ctx, input }): Promise<DeliveryView[]> => {
      await authorize(ctx.db, ctx.user.memberships, input.team, false);
      return listDeliveries(ctx.db, input.team, input.limit);
    }),

  createChannel: notificationsProcedure.input(createChannelInputSchema).mutation(async ({ ctx, input }) => {
    await authorize(ctx.db, ctx.user.memberships, input.team, true);
    return createChannel(ctx.db, { ...input, actorId: ctx.user.id });
  }),

  deleteChannel: notificationsProcedure.input(channelInputSchema).mutation(async ({ ctx, input }) => {
    await authorize(ctx.db, ctx.user.memberships, input.team, true);
    await deleteChannel(ctx.db, { ...input, actorId: ctx.user.id });
  }),

  setSubscription: notificationsProcedure
    .input(setSubscriptionInputSchema)
    .mutation(async ({ ctx, input }) => {
      await authorize(ctx.db, ctx.user.memberships, input.team, true);
      await setSubscription(ctx.db, { ...input, actorId: ctx.user.id });
    }),

  removeSubscription: notificationsProcedure
    .input(removeSubscriptionInputSchema)
    .mutation(async ({ ctx, input }) => {
      await authorize(ctx.db, ctx.user.memberships, input.team, true);
      await removeSubscription(ctx.db, { ...input, actorId: ctx.user.id });
    }),

  sendTest: notificationsProcedure.input(channelInputSchema).mutation(async ({ ctx, input }) => {
    await authorize(ctx.db, ctx.user.memberships, input.team, true);
    const { team, channelId } = await auditTestSend(ctx.db, { ...input, actorId: ctx.user.id });
    const id = await ensureNotifier({ db: ctx.db, log: notifierLog }).sendTest(channelId, team);
    const [delivery] = await listDeliveries(ctx.db, input.team, 1, id);
    return delivery ?? null;
  }),
});
