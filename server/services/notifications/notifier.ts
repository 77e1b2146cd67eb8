import { randomUUID } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { DEFAULT_RETRY, postWebhook, type RetryPolicy, retryDelayMs } from "./deliver";
import { collectEvents, type TeamRef, type Window } from "./events";
import { type ChannelKind, subscriptionSchema } from "./notifications.schema";
import { type NotificationEvent, payloadFor } from "./payloads";

/**
 * The console's notifier: every interval it reads the events since its cursor (events.ts), records one
 * delivery per event and subscribed channel (the unique channel × key drops repeats), and sends the
 * deliveries that are due, retrying failures with bounded exponential back-off (deliver.ts). Deliveries are
 * claimed with a conditional update, so two console replicas never send one twice. Its timer does not keep
 * the process alive; a failed tick is logged and the next one tries again.
 */
export type NotifierOptions = {
  db: Db;
  log: Logger;
  intervalMs?: number;
  /** The console's address, for Alertmanager's externalURL and generatorURL. */
  externalUrl?: string;
  retry?: RetryPolicy;
  /** How far back each tick reads before its cursor: rows committed late are still seen. */
  overlapMs?: number;
};

export type Notifier = {
  /** Reads new events and sends what is due; returns how many deliveries were sent or given up. */
  tick(now?: Date): Promise<void>;
  /** Sends a test notification to the channel now (and retries it like any other); the delivery's id. */
  sendTest(channelId: string, team: { name: string; namespace: string }): Promise<string>;
  stop(): void;
};

const CURSOR = "events";
const BATCH = 20;

export function createNotifier(opts: NotifierOptions): Notifier {
  const { db, log } = opts;
  const retry = opts.retry ?? DEFAULT_RETRY;
  const overlapMs = opts.overlapMs ?? 120_000;
  let running: Promise<void> | null = null;

  async function readEvents(now: Date): Promise<void> {
    const cursor = await db.notificationCursor.findUnique({ where: { name: CURSOR } });
    // The first tick ever starts from now: subscribing is not a request for the past.
    const from = cursor ? new Date(cursor.at.getTime() - overlapMs) : now;
    const subscriptions = await db.notificationSubscription.findMany({
      include: { channel: { select: { id: true, teamId: true } } },
    });
    const teamIds = [...new Set(subscriptions.map((row) => row.channel.teamId))];
    const teams = new Map(
      (await db.team.findMany({ where: { id: { in: teamIds } } })).map((team) => [team.id, team]),
    );
    for (const row of subscriptions) {
      const team = teams.get(row.channel.teamId);
      if (team) await record(row, team, { from, to: now });
    }
    await db.notificationCursor.upsert({
      where: { name: CURSOR },
      create: { name: CURSOR, at: now },
      update: { at: now },
    });
  }

  /** Records the deliveries of one subscription's events in the window (repeats dropped by key). */
  async function record(
    row: { channelId: string; event: string; params: unknown; createdAt: Date },
    team: TeamRef,
    window: Window,
  ): Promise<void> {
    const parsed = subscriptionSchema.safeParse({ ...(row.params as object), event: row.event });
    if (!parsed.success) return;
    // A subscription is told of what happens after it was made, not of the overlap before it.
    const from = new Date(Math.max(row.createdAt.getTime(), window.from.getTime()));
    const events = await collectEvents(db, team, parsed.data, { from, to: window.to });
    if (events.length === 0) return;
    await db.notificationDelivery.createMany({
      data: events.map((event) => ({
        channelId: row.channelId,
        key: event.key,
        event: event.event,
        details: event as unknown as Prisma.InputJsonValue,
        nextAttemptAt: window.to,
      })),
      skipDuplicates: true,
    });
  }

  /** Sends one delivery if this process wins its claim (attempts still at what it read). */
  async function attempt(id: string, attempts: number): Promise<void> {
    const now = new Date();
    const claimed = await db.notificationDelivery.updateMany({
      where: { id, status: "pending", attempts },
      data: { attempts: attempts + 1, nextAttemptAt: new Date(now.getTime() + retry.timeoutMs + 60_000) },
    });
    if (claimed.count === 0) return;
    const row = await db.notificationDelivery.findUniqueOrThrow({
      where: { id },
      include: { channel: true },
    });
    const event = row.details as unknown as NotificationEvent;
    const body = payloadFor(row.channel.kind as ChannelKind, event, {
      receiver: row.channel.name,
      externalUrl: opts.externalUrl ?? "",
    });
    const result = await postWebhook(row.channel.kind as ChannelKind, row.channel.url, body, retry.timeoutMs);
    const used = attempts + 1;
    const done = new Date();
    await db.notificationDelivery.update({
      where: { id },
      data: result.ok
        ? { status: "sent", sentAt: done, responseCode: result.responseCode, lastError: null }
        : {
            status: used >= retry.maxAttempts ? "failed" : "pending",
            responseCode: result.responseCode,
            lastError: result.error,
            nextAttemptAt: new Date(done.getTime() + retryDelayMs(retry, used)),
          },
    });
    if (!result.ok) log.warn("notification not delivered", { id, attempts: used, error: result.error });
  }

  async function sendDue(now: Date): Promise<void> {
    const due = await db.notificationDelivery.findMany({
      where: { status: "pending", nextAttemptAt: { lte: now } },
      orderBy: { nextAttemptAt: "asc" },
      take: BATCH,
      select: { id: true, attempts: true },
    });
    await Promise.all(due.map((row) => attempt(row.id, row.attempts)));
  }

  const notifier: Notifier = {
    tick(now = new Date()) {
      running ??= (async () => {
        try {
          await readEvents(now);
          await sendDue(now);
        } finally {
          running = null;
        }
      })();
      return running;
    },
    async sendTest(channelId, team) {
      const event: NotificationEvent = {
        key: `test:${randomUUID()}`,
        event: "test",
        team: team.name,
        namespace: team.namespace,
        job: null,
        summary: `A test notification from Rebound for team ${team.name}`,
        startsAt: new Date().toISOString(),
      };
      const row = await db.notificationDelivery.create({
        data: {
          channelId,
          key: event.key,
          event: "test",
          details: event as unknown as Prisma.InputJsonValue,
        },
      });
      await attempt(row.id, 0);
      return row.id;
    },
    stop() {
      clearInterval(timer);
    },
  };
  const timer = setInterval(() => {
    notifier.tick().catch((error: unknown) => log.warn("notification tick failed", { error: String(error) }));
  }, opts.intervalMs ?? 15_000);
  timer.unref();
  return notifier;
}

const notifiers = new WeakMap<Db, Notifier>();

/** The process's notifier for this database, started if there is none (server/services/wiring.ts). */
export function ensureNotifier(opts: NotifierOptions): Notifier {
  const existing = notifiers.get(opts.db);
  if (existing) return existing;
  const notifier = createNotifier(opts);
  notifiers.set(opts.db, notifier);
  return notifier;
}

/** The notifier running for this database, if any (the router's "send test"). */
export function notifierOf(db: Db): Notifier | undefined {
  return notifiers.get(db);
}
