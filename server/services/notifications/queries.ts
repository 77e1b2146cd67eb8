import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import {
  type ChannelKind,
  type ChannelView,
  type DeliveryView,
  type Subscription,
  subscriptionSchema,
} from "./notifications.schema";

/** A team's channels with their subscriptions; the URL is never selected, only its hint. */
export async function listChannels(db: Db, team: string): Promise<ChannelView[]> {
  const rows = await db.notificationChannel.findMany({
    where: { teamId: await teamId(db, team) },
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      kind: true,
      urlHint: true,
      createdAt: true,
      subscriptions: { orderBy: { event: "asc" }, select: { event: true, params: true } },
    },
  });
  return rows.map(({ subscriptions, ...row }) => ({
    ...row,
    kind: row.kind as ChannelKind,
    subscriptions: subscriptions.flatMap((sub): Subscription[] => {
      const parsed = subscriptionSchema.safeParse({ ...(sub.params as object), event: sub.event });
      return parsed.success ? [parsed.data] : [];
    }),
  }));
}

/** The team's delivery log, newest first; `id`: that one delivery only. */
export async function listDeliveries(
  db: Db,
  team: string,
  limit: number,
  id?: string,
): Promise<DeliveryView[]> {
  const rows = await db.notificationDelivery.findMany({
    where: { channel: { teamId: await teamId(db, team) }, ...(id ? { id } : {}) },
    orderBy: { createdAt: "desc" },
    take: limit,
    include: { channel: { select: { name: true } } },
  });
  return rows.map((row) => ({
    id: row.id,
    channel: row.channel.name,
    event: row.event,
    key: row.key,
    summary: String((row.details as { summary?: unknown }).summary ?? ""),
    status: row.status as DeliveryView["status"],
    attempts: row.attempts,
    responseCode: row.responseCode,
    lastError: row.lastError,
    createdAt: row.createdAt,
    sentAt: row.sentAt,
  }));
}

export async function teamId(db: Db, name: string): Promise<string> {
  const team = await db.team.findUnique({ where: { name }, select: { id: true } });
  if (!team) throw new AppError("NOT_FOUND", `team: no team named ${name}`);
  return team.id;
}
