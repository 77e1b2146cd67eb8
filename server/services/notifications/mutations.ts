import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/store/audit/mutations";
import {
  type ChannelInput,
  type CreateChannelInput,
  type RemoveSubscriptionInput,
  type SetSubscriptionInput,
  urlHint,
} from "./notifications.schema";

/**
 * Changes to a team's channels and subscriptions: each in one transaction with its audit row (action
 * `notifications.*`, target `team/<name>`). The audit names the channel and the URL's hint, never the URL.
 * The router has authorised the actor for the team; the team and channel are looked up again here.
 */
type Actor = { actorId: string };

async function teamOf(tx: Prisma.TransactionClient, name: string) {
  const team = await tx.team.findUnique({ where: { name } });
  if (!team) throw new AppError("NOT_FOUND", `team: no team named ${name}`);
  return team;
}

async function channelOf(tx: Prisma.TransactionClient, input: ChannelInput) {
  const team = await teamOf(tx, input.team);
  const channel = await tx.notificationChannel.findFirst({ where: { id: input.channelId, teamId: team.id } });
  if (!channel) throw new AppError("NOT_FOUND", `channelId: team ${input.team} has no such channel`);
  return { team, channel };
}

export async function createChannel(db: Db, input: CreateChannelInput & Actor): Promise<{ id: string }> {
  return db.$transaction(async (tx) => {
    const team = await teamOf(tx, input.team);
    const taken = await tx.notificationChannel.findFirst({ where: { teamId: team.id, name: input.name } });
    if (taken) throw new AppError("CONFLICT", `name: team ${input.team} already has a channel ${input.name}`);
    const hint = urlHint(input.url);
    const channel = await tx.notificationChannel.create({
      data: { teamId: team.id, name: input.name, kind: input.kind, url: input.url, urlHint: hint },
    });
    await writeAudit(tx, {
      userId: input.actorId,
      action: "notifications.channel.create",
      target: `team/${team.name}`,
      details: { channel: input.name, kind: input.kind, urlHint: hint },
    });
    return { id: channel.id };
  });
}

export async function deleteChannel(db: Db, input: ChannelInput & Actor): Promise<void> {
  await db.$transaction(async (tx) => {
    const { team, channel } = await channelOf(tx, input);
    await tx.notificationChannel.delete({ where: { id: channel.id } });
    await writeAudit(tx, {
      userId: input.actorId,
      action: "notifications.channel.delete",
      target: `team/${team.name}`,
      details: { channel: channel.name, kind: channel.kind, urlHint: channel.urlHint },
    });
  });
}

export async function setSubscription(db: Db, input: SetSubscriptionInput & Actor): Promise<void> {
  await db.$transaction(async (tx) => {
    const { team, channel } = await channelOf(tx, input);
    const { event, ...params } = input.subscription;
    await tx.notificationSubscription.upsert({
      where: { channelId_event: { channelId: channel.id, event } },
      create: { channelId: channel.id, event, params },
      update: { params },
    });
    await writeAudit(tx, {
      userId: input.actorId,
      action: "notifications.subscription.set",
      target: `team/${team.name}`,
      details: { channel: channel.name, event, params },
    });
  });
}

export async function removeSubscription(db: Db, input: RemoveSubscriptionInput & Actor): Promise<void> {
  await db.$transaction(async (tx) => {
    const { team, channel } = await channelOf(tx, input);
    const { count } = await tx.notificationSubscription.deleteMany({
      where: { channelId: channel.id, event: input.event },
    });
    if (count === 0)
      throw new AppError("NOT_FOUND", `event: ${channel.name} is not subscribed to ${input.event}`);
    await writeAudit(tx, {
      userId: input.actorId,
      action: "notifications.subscription.remove",
      target: `team/${team.name}`,
      details: { channel: channel.name, event: input.event },
    });
  });
}

/** Audits a test send (it changes nothing but the delivery log); the channel's team and id, checked. */
export async function auditTestSend(db: Db, input: ChannelInput & Actor) {
  return db.$transaction(async (tx) => {
    const { team, channel } = await channelOf(tx, input);
    await writeAudit(tx, {
      userId: input.actorId,
      action: "notifications.test",
      target: `team/${team.name}`,
      details: { channel: channel.name },
    });
    return { team: { name: team.name, namespace: team.namespace }, channelId: channel.id };
  });
}
