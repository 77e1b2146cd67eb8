import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import type { SessionUser } from "@/server/services/auth/sessions";
import { ensureNotifier, type Notifier } from "@/server/services/notifications/notifier";
import { type Receiver, startReceiver } from "@/server/services/notifications/testing/receiver";
import { createSeededTestDatabase } from "@/test/database";

/**
 * The notifications router on real Postgres with a real receiver: who may see and change a team's channels
 * (team admins and cluster admins edit, members read, other teams get nothing), the webhook URL in no
 * answer nor audit row, every refusal naming its field and changing nothing, "send test" delivering and
 * showing in the log, and an audit row per change.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let receiver: Receiver;
let notifier: Notifier;
const TEAM = "llm-research";
const SECRET = "T0SECRET/B0SECRET/xoxb-very-secret-token";

function callerAs(user: SessionUser | null) {
  const ctx: Context = {
    db,
    user,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "notifications-router" }),
    setCookie: () => undefined,
    cluster: () => Promise.reject(new Error("notifications read no cluster")),
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return createCaller(ctx);
}

const as = async (email: string) =>
  callerAs(await callerAs(null).auth.signIn({ email, password: "rebound-demo" }));

/** How a call was refused: `CODE: message`, a zod refusal as `CODE: field: message` per issue. */
const failure = (call: () => Promise<unknown>) =>
  call().then(
    () => "allowed",
    (error: unknown) => {
      if (!(error instanceof TRPCError)) return String(error);
      const cause = error.cause;
      if (cause instanceof ZodError)
        return `${error.code}: ${cause.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`;
      return `${error.code}: ${error.message}`;
    },
  );

/** Everything a notifications mutation could change. */
async function state() {
  const [channels, subscriptions, deliveries, audit] = await Promise.all([
    db.notificationChannel.findMany({ orderBy: { id: "asc" } }),
    db.notificationSubscription.findMany({ orderBy: { id: "asc" } }),
    db.notificationDelivery.count(),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ channels, subscriptions, deliveries, audit });
}

let channelId = "";

beforeAll(async () => {
  database = await createSeededTestDatabase("it_notify_router");
  db = createDb(database.url);
  // The router's notifier for this database, with retries short enough for a test.
  notifier = ensureNotifier({
    db,
    log: createLogger({ test: "notifier" }),
    intervalMs: 3_600_000,
    retry: { timeoutMs: 500, maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 100 },
  });
  receiver = await startReceiver();
  const lead = await as("lead@rebound.local");
  ({ id: channelId } = await lead.notifications.createChannel({
    team: TEAM,
    name: "oncall",
    kind: "slack",
    url: `${receiver.url}/services/${SECRET}`,
  }));
});

afterAll(async () => {
  notifier.stop();
  await receiver.close();
  await db.$disconnect();
  await database.drop();
});

describe("notifications router (real Postgres, real receiver)", () => {
  it("a team admin adds a channel and subscriptions; each change is audited without the URL", async () => {
    const lead = await as("lead@rebound.local");
    await lead.notifications.setSubscription({
      team: TEAM,
      channelId,
      subscription: { event: "restart_storm", restarts: 5, minutes: 10 },
    });
    await lead.notifications.setSubscription({
      team: TEAM,
      channelId,
      subscription: { event: "job_failed" },
    });
    const view = await lead.notifications.get({ team: TEAM });
    expect(view.canEdit).toBe(true);
    expect(view.channels).toEqual([
      {
        id: channelId,
        name: "oncall",
        kind: "slack",
        urlHint: `${new URL(receiver.url).host} …oken`,
        createdAt: expect.any(Date),
        subscriptions: [{ event: "job_failed" }, { event: "restart_storm", restarts: 5, minutes: 10 }],
      },
    ]);
    const audit = await db.auditLog.findMany({
      where: { action: { startsWith: "notifications." } },
      orderBy: { createdAt: "asc" },
    });
    expect(audit.map((row) => [row.action, row.target])).toEqual([
      ["notifications.channel.create", `team/${TEAM}`],
      ["notifications.subscription.set", `team/${TEAM}`],
      ["notifications.subscription.set", `team/${TEAM}`],
    ]);
    expect(JSON.stringify(audit)).not.toContain("SECRET");
  });

  it("send test delivers a Slack message to the receiver and shows it in the log", async () => {
    const admin = await as("admin@rebound.local");
    const before = receiver.requests.length;
    const delivery = await admin.notifications.sendTest({ team: TEAM, channelId });
    expect(delivery).toMatchObject({
      channel: "oncall",
      event: "test",
      status: "sent",
      attempts: 1,
      responseCode: 200,
    });
    expect(receiver.requests).toHaveLength(before + 1);
    expect(receiver.requests.at(-1)?.path).toBe(`/services/${SECRET}`);
    expect(receiver.requests.at(-1)?.body).toMatchObject({
      text: `[Rebound] Test notification: A test notification from Rebound for team ${TEAM}`,
    });
    const log = await admin.notifications.deliveries({ team: TEAM });
    expect(log[0]).toMatchObject({ id: delivery?.id, status: "sent" });
  });

  it("members read without the secret; no answer to anyone carries the URL", async () => {
    const answers: unknown[] = [];
    for (const email of [
      "admin@rebound.local",
      "lead@rebound.local",
      "engineer@rebound.local",
      "viewer@rebound.local",
    ]) {
      const caller = await as(email);
      answers.push(
        await caller.notifications.get({ team: TEAM }),
        await caller.notifications.deliveries({ team: TEAM }),
      );
    }
    const engineer = await as("engineer@rebound.local");
    expect((await engineer.notifications.get({ team: TEAM })).canEdit).toBe(false);
    expect(JSON.stringify(answers)).not.toContain("SECRET");
    expect(JSON.stringify(answers)).not.toContain("/services/");
  });

  it("a member of another team gets nothing, and members who are not admins change nothing", async () => {
    const before = await state();
    const vision = await as("vision@rebound.local");
    expect(await failure(() => vision.notifications.get({ team: TEAM }))).toMatch(/^FORBIDDEN/);
    expect(await failure(() => vision.notifications.deliveries({ team: TEAM }))).toMatch(/^FORBIDDEN/);
    expect(await failure(() => vision.notifications.sendTest({ team: TEAM, channelId }))).toMatch(
      /^FORBIDDEN/,
    );
    const engineer = await as("engineer@rebound.local");
    for (const attempt of [
      () =>
        engineer.notifications.createChannel({
          team: TEAM,
          name: "x",
          kind: "slack",
          url: "https://hooks.example/x",
        }),
      () => engineer.notifications.deleteChannel({ team: TEAM, channelId }),
      () =>
        engineer.notifications.setSubscription({
          team: TEAM,
          channelId,
          subscription: { event: "preempted" },
        }),
      () => engineer.notifications.removeSubscription({ team: TEAM, channelId, event: "job_failed" }),
      () => engineer.notifications.sendTest({ team: TEAM, channelId }),
    ])
      expect(await failure(attempt)).toMatch(
        /^FORBIDDEN: only a team admin of llm-research or a cluster admin/,
      );
    // The vision team's admin (a cluster admin here) cannot reach llm-research's channel through vision.
    const admin = await as("admin@rebound.local");
    expect(await failure(() => admin.notifications.deleteChannel({ team: "vision", channelId }))).toMatch(
      /^NOT_FOUND: channelId/,
    );
    expect(await state()).toBe(before);
  });

  it("refuses bad input naming the field, and changes nothing", async () => {
    const before = await state();
    const lead = await as("lead@rebound.local");
    const bad: Array<[() => Promise<unknown>, RegExp]> = [
      [
        () => lead.notifications.createChannel({ team: TEAM, name: "a", kind: "slack", url: "not a url" }),
        /url: /,
      ],
      [
        () =>
          lead.notifications.createChannel({
            team: TEAM,
            name: "a",
            kind: "slack",
            url: "ftp://x.example/h",
          }),
        /url: /,
      ],
      [
        () =>
          lead.notifications.createChannel({
            team: TEAM,
            name: "Bad Name",
            kind: "slack",
            url: "https://x.example/h",
          }),
        /name: /,
      ],
      [
        () =>
          lead.notifications.createChannel({
            team: TEAM,
            name: "a",
            kind: "email" as "slack",
            url: "https://x.example/h",
          }),
        /kind: /,
      ],
      [
        () =>
          lead.notifications.createChannel({
            team: TEAM,
            name: "oncall",
            kind: "slack",
            url: "https://x.example/h",
          }),
        /^CONFLICT: name: /,
      ],
      [
        () =>
          lead.notifications.setSubscription({
            team: TEAM,
            channelId,
            subscription: { event: "rain" as "job_failed" },
          }),
        /subscription\.event: unknown event/,
      ],
      [
        () =>
          lead.notifications.setSubscription({
            team: TEAM,
            channelId,
            subscription: { event: "job_recovered", restarts: 0 },
          }),
        /subscription\.restarts: must be 1 or more/,
      ],
      [
        () =>
          lead.notifications.setSubscription({
            team: TEAM,
            channelId,
            subscription: { event: "restart_storm", restarts: 3, minutes: -1 },
          }),
        /subscription\.minutes: must be 1 or more/,
      ],
      [
        () =>
          lead.notifications.setSubscription({
            team: TEAM,
            channelId,
            subscription: { event: "pending_long", minutes: 1.5 },
          }),
        /subscription\.minutes: /,
      ],
      [
        () => lead.notifications.removeSubscription({ team: TEAM, channelId, event: "preempted" }),
        /^NOT_FOUND: event: /,
      ],
    ];
    for (const [attempt, message] of bad) expect(await failure(attempt)).toMatch(message);
    expect(await state()).toBe(before);
  });

  it("removing a subscription and the channel is audited, and the channel's log goes with it", async () => {
    const lead = await as("lead@rebound.local");
    await lead.notifications.removeSubscription({ team: TEAM, channelId, event: "restart_storm" });
    await lead.notifications.deleteChannel({ team: TEAM, channelId });
    expect((await lead.notifications.get({ team: TEAM })).channels).toEqual([]);
    expect(await db.notificationDelivery.count({ where: { channelId } })).toBe(0);
    const actions = await db.auditLog.findMany({
      where: { action: { startsWith: "notifications." } },
      orderBy: { createdAt: "asc" },
    });
    expect(actions.slice(-2).map((row) => row.action)).toEqual([
      "notifications.subscription.remove",
      "notifications.channel.delete",
    ]);
  });
});
