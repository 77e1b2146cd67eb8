import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import type { SessionUser } from "@/server/services/auth/sessions";
import { createSeededTestDatabase } from "@/test/database";
import type { Subscription } from "./notifications.schema";
import { createNotifier, type Notifier } from "./notifier";
import { type Receiver, type Reply, startReceiver } from "./testing/receiver";

/**
 * The notifier on real Postgres against real HTTP receivers: events read from the rows the operator and
 * the console write are delivered once per channel in both formats, a receiver that fails and times out
 * gets the same delivery again until it takes it, and re-reading the same rows sends nothing more.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let notifier: Notifier;
const receivers: Receiver[] = [];
const TEAM = "llm-research";
const NAMESPACE = "hyperpod-ns-llm-research";
const RETRY = { timeoutMs: 300, maxAttempts: 5, baseDelayMs: 50, maxDelayMs: 200 };

async function admin() {
  return callerAs(
    await callerAs(null).auth.signIn({ email: "admin@rebound.local", password: "rebound-demo" }),
  );
}

const cookies: string[] = [];
function callerAs(user: SessionUser | null) {
  const ctx: Context = {
    db,
    user,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "notifications" }),
    setCookie: (cookie) => cookies.push(cookie),
    cluster: () => Promise.reject(new Error("notifications read no cluster")),
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return createCaller(ctx);
}

/** A channel on a new receiver with one subscription; returns the receiver and the channel id. */
async function channel(
  kind: "alertmanager" | "slack",
  subscription: Subscription,
  script: Reply[] = [],
  then: Reply = "ok",
) {
  const receiver = await startReceiver(script, then);
  receivers.push(receiver);
  const caller = await admin();
  const name = `${kind}-${receivers.length}`;
  const { id } = await caller.notifications.createChannel({
    team: TEAM,
    name,
    kind,
    url: `${receiver.url}/hooks/T000/B000/secret-${receivers.length}`,
  });
  await caller.notifications.setSubscription({ team: TEAM, channelId: id, subscription });
  return { receiver, id, name };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ticks until every delivery of the channel is sent or given up (at most `ms`). */
async function settle(channelId: string, ms = 8000) {
  const until = Date.now() + ms;
  for (;;) {
    await notifier.tick();
    const open = await db.notificationDelivery.count({ where: { channelId, status: "pending" } });
    if (open === 0 || Date.now() > until) return;
    await sleep(60);
  }
}

async function failRun(uid: string, jobName: string) {
  const now = new Date();
  await db.jobRun.create({
    data: {
      uid,
      namespace: NAMESPACE,
      jobName,
      createdAt: new Date(now.getTime() - 60_000),
      endedAt: now,
      phase: "Failed",
      reason: "BackoffLimitExceeded",
    },
  });
}

beforeAll(async () => {
  database = await createSeededTestDatabase("it_notify");
  db = createDb(database.url);
  notifier = createNotifier({
    db,
    log: createLogger({ test: "notifier" }),
    intervalMs: 3_600_000,
    retry: RETRY,
    externalUrl: "http://console.test",
  });
  await notifier.tick(); // the first tick sets the cursor: nothing before it is notified
});

afterAll(async () => {
  notifier.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await db.$disconnect();
  await database.drop();
});

describe("notifications (real Postgres, real HTTP receivers)", () => {
  it("a failed job sends one Alertmanager v4 and one Slack notification, once however often it is read", async () => {
    const am = await channel("alertmanager", { event: "job_failed" });
    const slack = await channel("slack", { event: "job_failed" });
    await failRun("uid-failed-1", "llama-pretrain");
    for (let i = 0; i < 3; i++) await notifier.tick(); // overlapping windows read the run three times
    await settle(am.id);
    await settle(slack.id);
    expect(am.receiver.requests).toHaveLength(1);
    expect(slack.receiver.requests).toHaveLength(1);
    const [amRequest] = am.receiver.requests;
    expect(amRequest?.path).toBe("/hooks/T000/B000/secret-1");
    expect(amRequest?.contentType).toBe("application/json");
    const body = amRequest?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      version: "4",
      status: "firing",
      receiver: am.name,
      truncatedAlerts: 0,
      externalURL: "http://console.test",
    });
    const alerts = body.alerts as Array<Record<string, unknown>>;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.labels).toEqual({
      alertname: "ReboundJobFailed",
      team: TEAM,
      namespace: NAMESPACE,
      job: "llama-pretrain",
      severity: "critical",
    });
    expect(alerts[0]?.status).toBe("firing");
    expect(Date.now() - Date.parse(String(alerts[0]?.startsAt))).toBeLessThan(60_000);
    expect(alerts[0]?.annotations).toEqual({ summary: "Job llama-pretrain failed: BackoffLimitExceeded" });
    const slackBody = slack.receiver.requests[0]?.body as { text: string; blocks: Array<{ type: string }> };
    expect(Object.keys(slackBody).sort()).toEqual(["blocks", "text"]);
    expect(slackBody.text).toBe("[Rebound] Job failed: Job llama-pretrain failed: BackoffLimitExceeded");
    expect(slackBody.blocks.map((block) => block.type)).toEqual(["header", "section", "context"]);
    const rows = await db.notificationDelivery.findMany({ where: { channelId: { in: [am.id, slack.id] } } });
    expect(rows.map((row) => [row.status, row.attempts, row.responseCode, row.key])).toEqual([
      ["sent", 1, 200, "job_failed:uid-failed-1"],
      ["sent", 1, 200, "job_failed:uid-failed-1"],
    ]);
  });

  it("retries a receiver that fails (500) and times out, until it recovers: one delivery", async () => {
    const am = await channel("alertmanager", { event: "job_failed" }, ["error", "hang", "ok"]);
    await failRun("uid-failed-2", "flaky-receiver");
    await settle(am.id);
    expect(am.receiver.requests).toHaveLength(3);
    const bodies = am.receiver.requests.map((request) => JSON.stringify(request.body));
    expect(new Set(bodies).size).toBe(1); // the same notification each time
    const gaps = am.receiver.requests
      .slice(1)
      .map((request, i) => request.at - (am.receiver.requests[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(RETRY.baseDelayMs); // backed off after the 500
    expect(gaps[1]).toBeGreaterThanOrEqual(RETRY.timeoutMs); // waited out the hung request first
    const [row] = await db.notificationDelivery.findMany({ where: { channelId: am.id } });
    expect(row).toMatchObject({ status: "sent", attempts: 3, responseCode: 200, lastError: null });
    for (let i = 0; i < 3; i++) await notifier.tick();
    expect(am.receiver.requests).toHaveLength(3);
  });

  it("gives up after the bounded attempts, and Slack counts only 200 `ok` as delivered", async () => {
    const slack = await channel("slack", { event: "job_failed" }, [], "refuse");
    const refusing = slack.receiver;
    await failRun("uid-failed-3", "refused");
    await settle(slack.id);
    expect(refusing.requests).toHaveLength(RETRY.maxAttempts);
    const [row] = await db.notificationDelivery.findMany({ where: { channelId: slack.id } });
    expect(row).toMatchObject({
      status: "failed",
      attempts: RETRY.maxAttempts,
      responseCode: 200,
      lastError: "HTTP 200: invalid_payload",
    });
  });

  it("restart storm (N in M minutes) and recovered after N restarts, from RestartEvent rows", async () => {
    const storm = await channel("alertmanager", { event: "restart_storm", restarts: 3, minutes: 10 });
    const recovered = await channel("slack", { event: "job_recovered", restarts: 2 });
    const now = Date.now();
    const fault = (i: number, outcome: "recovered" | "pending") => ({
      jobName: "looping",
      namespace: NAMESPACE,
      jobUid: "uid-loop",
      ranks: [0],
      pods: ["looping-worker-0"],
      faultReason: "WorkerCrash",
      faultAt: new Date(now + i * 20),
      detectedAt: new Date(now + i * 20 + 1),
      action: "PLR" as const,
      outcome,
      recoveredAt: outcome === "recovered" ? new Date(now + i * 20 + 5) : null,
    });
    await db.restartEvent.create({ data: fault(0, "recovered") });
    await sleep(50); // the tick's time is past the rows' times
    await notifier.tick();
    await db.restartEvent.create({ data: fault(1, "recovered") });
    await db.restartEvent.create({ data: fault(2, "pending") });
    await sleep(50);
    await settle(storm.id);
    await settle(recovered.id);
    expect(storm.receiver.requests).toHaveLength(1);
    const stormBody = storm.receiver.requests[0]?.body as {
      alerts: Array<{ labels: Record<string, string> }>;
    };
    const alert = stormBody.alerts[0];
    expect(alert?.labels).toMatchObject({ alertname: "ReboundRestartStorm", job: "looping", team: TEAM });
    // The first recovery was restart 1 (< N = 2): only the second recovery notifies.
    expect(recovered.receiver.requests.map((request) => (request.body as { text: string }).text)).toEqual([
      "[Rebound] Job recovered: Job looping recovered from WorkerCrash after 2 restarts",
    ]);
  });

  it("node fault, preemption, quota change and a job pending too long, each once", async () => {
    const am = await channel("alertmanager", { event: "node_fault" });
    const caller = await admin();
    for (const subscription of [
      { event: "preempted" as const },
      { event: "quota_changed" as const },
      { event: "pending_long" as const, minutes: 10 },
    ])
      await caller.notifications.setSubscription({ team: TEAM, channelId: am.id, subscription });
    const at = new Date(Date.now() + 5);
    await db.restartEvent.create({
      data: {
        jobName: "on-bad-node",
        namespace: NAMESPACE,
        jobUid: "uid-node",
        ranks: [0, 1],
        pods: ["on-bad-node-worker-0"],
        node: "node-3",
        faultReason: "NodeFault",
        faultAt: at,
        detectedAt: at,
        action: "POD_REPLACEMENT",
      },
    });
    await db.jobEvent.create({
      data: {
        jobUid: "uid-pre",
        namespace: NAMESPACE,
        jobName: "low-prio",
        type: "Warning",
        reason: "Preempted",
        message: "preempted by inference job",
        firstAt: at,
        lastAt: at,
      },
    });
    await db.auditLog.create({ data: { action: "quota.update", target: `team/${TEAM}`, details: {} } });
    await db.localJob.create({
      data: { name: "stuck", namespace: NAMESPACE, spec: {}, createdAt: new Date(Date.now() - 11 * 60_000) },
    });
    await db.localJob.create({
      data: { name: "fresh", namespace: NAMESPACE, spec: {}, createdAt: new Date(Date.now() - 60_000) },
    });
    await sleep(50);
    await settle(am.id);
    await settle(am.id);
    const alerts = am.receiver.requests.map(
      (request) => (request.body as { alerts: Array<{ labels: Record<string, string> }> }).alerts[0]?.labels,
    );
    expect(alerts.map((labels) => `${labels?.alertname} ${labels?.job ?? "-"}`).sort()).toEqual([
      "ReboundJobPendingLong stuck",
      "ReboundJobPreempted low-prio",
      "ReboundNodeFault on-bad-node",
      "ReboundQuotaChanged -",
    ]);
  });

  it("another team's events never reach this team's channels", async () => {
    const am = await channel("alertmanager", { event: "job_failed" });
    await db.jobRun.create({
      data: {
        uid: "uid-vision",
        namespace: "hyperpod-ns-vision",
        jobName: "vit",
        createdAt: new Date(),
        endedAt: new Date(),
        phase: "Failed",
      },
    });
    await settle(am.id);
    expect(am.receiver.requests).toHaveLength(0);
  });
});
