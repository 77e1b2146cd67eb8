import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { Subscription } from "./notifications.schema";
import type { NotificationEvent } from "./payloads";

/**
 * The events a team subscribes to, read from what Postgres already holds, so the operator writes nothing
 * new for them: JobRun (a run ended Failed; server/store/job-runs/store.ts), RestartEvent (faults,
 * recoveries and their counts; server/store/restart-events/mutations.ts), JobEvent and ScalingEvent
 * (preemptions), LocalJob (jobs pending on the local back end) and AuditLog (`quota.update`,
 * server/services/governance/quota.ts). Each event has a stable key, so reading a row twice (windows
 * overlap) notifies once.
 */

export type Window = { from: Date; to: Date };
export type TeamRef = { name: string; namespace: string };

type RestartRow = {
  id: string;
  jobName: string;
  namespace: string;
  jobUid: string | null;
  faultReason: string;
  node: string | null;
  count: number;
  detectedAt: Date;
  recoveredAt: Date | null;
  createdAt: Date;
};

const jobKey = (row: { jobUid: string | null; namespace: string; jobName: string }) =>
  row.jobUid ?? `${row.namespace}/${row.jobName}`;

export function collectEvents(
  db: Db,
  team: TeamRef,
  subscription: Subscription,
  window: Window,
): Promise<NotificationEvent[]> {
  const inWindow = { gt: window.from, lte: window.to };
  switch (subscription.event) {
    case "job_failed":
      return failedJobs(db, team, inWindow, window.to);
    case "job_recovered":
      return recoveredJobs(db, team, subscription.restarts, { ...inWindow, to: window.to });
    case "restart_storm":
      return restartStorms(db, team, subscription, inWindow);
    case "pending_long":
      return pendingJobs(db, team, subscription.minutes, window.to);
    case "node_fault":
      return nodeFaults(db, team, inWindow);
    case "preempted":
      return preemptions(db, team, inWindow);
    case "quota_changed":
      return quotaChanges(db, team, inWindow);
    default:
      return subscription satisfies never;
  }
}

type Range = { gt: Date; lte: Date };

async function failedJobs(db: Db, team: TeamRef, range: Range, to: Date): Promise<NotificationEvent[]> {
  const runs = await db.jobRun.findMany({
    where: { namespace: team.namespace, phase: "Failed", endedAt: range },
  });
  return runs.map((run) => ({
    team: team.name,
    namespace: team.namespace,
    key: `job_failed:${run.uid}`,
    event: "job_failed",
    job: run.jobName,
    summary: `Job ${run.jobName} failed${run.reason ? `: ${run.reason}` : ""}`,
    startsAt: (run.endedAt ?? to).toISOString(),
  }));
}

async function recoveredJobs(
  db: Db,
  team: TeamRef,
  atLeast: number,
  range: Range & { to: Date },
): Promise<NotificationEvent[]> {
  const events: NotificationEvent[] = [];
  for (const row of await restarts(db, team, {
    outcome: "recovered",
    recoveredAt: { gt: range.gt, lte: range.lte },
  })) {
    const total = await restartsOfRun(db, row, row.detectedAt);
    if (total < atLeast) continue;
    events.push({
      team: team.name,
      namespace: team.namespace,
      key: `job_recovered:${row.id}`,
      event: "job_recovered",
      job: row.jobName,
      summary: `Job ${row.jobName} recovered from ${row.faultReason} after ${total} restart${total === 1 ? "" : "s"}`,
      startsAt: (row.recoveredAt ?? range.to).toISOString(),
    });
  }
  return events;
}

async function restartStorms(
  db: Db,
  team: TeamRef,
  storm: { restarts: number; minutes: number },
  range: Range,
): Promise<NotificationEvent[]> {
  const spanMs = storm.minutes * 60_000;
  const events = new Map<string, NotificationEvent>();
  for (const row of await restarts(db, team, { detectedAt: range })) {
    const since = new Date(row.detectedAt.getTime() - spanMs);
    const total = await restartsOfRun(db, row, row.detectedAt, since);
    if (total < storm.restarts) continue;
    // One storm per job per M-minute span of the clock, however many rows cross the threshold in it.
    const key = `restart_storm:${jobKey(row)}:${Math.floor(row.detectedAt.getTime() / spanMs)}`;
    events.set(key, {
      team: team.name,
      namespace: team.namespace,
      key,
      event: "restart_storm",
      job: row.jobName,
      summary: `Job ${row.jobName} restarted ${total} times in ${storm.minutes} min (last: ${row.faultReason})`,
      startsAt: row.detectedAt.toISOString(),
    });
  }
  return [...events.values()];
}

async function nodeFaults(db: Db, team: TeamRef, range: Range): Promise<NotificationEvent[]> {
  const faults = await restarts(db, team, { faultReason: "NodeFault", createdAt: range });
  return faults.map((row) => ({
    team: team.name,
    namespace: team.namespace,
    key: `node_fault:${row.id}`,
    event: "node_fault",
    job: row.jobName,
    summary: `Node ${row.node ?? "(unknown)"} failed under job ${row.jobName}`,
    startsAt: row.detectedAt.toISOString(),
  }));
}

async function preemptions(db: Db, team: TeamRef, range: Range): Promise<NotificationEvent[]> {
  const [events, scalings] = await Promise.all([
    db.jobEvent.findMany({ where: { namespace: team.namespace, reason: "Preempted", firstAt: range } }),
    db.scalingEvent.findMany({
      where: { namespace: team.namespace, reason: "Preempted", finishedAt: range },
    }),
  ]);
  const base = { team: team.name, namespace: team.namespace, event: "preempted" as const };
  return [
    ...events.map((row) => ({
      ...base,
      key: `preempted:${row.id}`,
      job: row.jobName,
      summary: `Job ${row.jobName} was preempted: ${row.message}`,
      startsAt: row.firstAt.toISOString(),
    })),
    ...scalings.map((row) => ({
      ...base,
      key: `preempted:${row.id}`,
      job: row.jobName,
      summary: `Job ${row.jobName} was scaled from ${row.fromReplicas} to ${row.toReplicas} replicas by preemption`,
      startsAt: row.finishedAt.toISOString(),
    })),
  ];
}

async function quotaChanges(db: Db, team: TeamRef, range: Range): Promise<NotificationEvent[]> {
  const rows = await db.auditLog.findMany({
    where: { action: "quota.update", target: `team/${team.name}`, createdAt: range },
    include: { user: { select: { email: true } } },
  });
  return rows.map((row) => ({
    team: team.name,
    namespace: team.namespace,
    key: `quota_changed:${row.id}`,
    event: "quota_changed",
    job: null,
    summary: `The compute quota of team ${team.name} was changed${row.user ? ` by ${row.user.email}` : ""}`,
    startsAt: row.createdAt.toISOString(),
  }));
}

function restarts(db: Db, team: TeamRef, where: Prisma.RestartEventWhereInput): Promise<RestartRow[]> {
  return db.restartEvent.findMany({
    where: { namespace: team.namespace, ...where },
    select: {
      id: true,
      jobName: true,
      namespace: true,
      jobUid: true,
      faultReason: true,
      node: true,
      count: true,
      detectedAt: true,
      recoveredAt: true,
      createdAt: true,
    },
  });
}

/** Restarts of the row's run detected in (since, upTo]; a row stands for `count` identical ones. */
async function restartsOfRun(db: Db, row: RestartRow, upTo: Date, since?: Date): Promise<number> {
  const run = row.jobUid
    ? { jobUid: row.jobUid }
    : { namespace: row.namespace, jobName: row.jobName, jobUid: null };
  const { _sum } = await db.restartEvent.aggregate({
    where: { ...run, detectedAt: { lte: upTo, ...(since ? { gt: since } : {}) } },
    _sum: { count: true },
  });
  return _sum.count ?? 0;
}

/**
 * Jobs of the local back end (LocalJob keeps their status in Postgres) submitted at least `minutes` ago that
 * never started and have not finished. A Kubernetes job's status lives in the apiserver, not here.
 */
async function pendingJobs(db: Db, team: TeamRef, minutes: number, now: Date): Promise<NotificationEvent[]> {
  const rows = await db.localJob.findMany({
    where: {
      namespace: team.namespace,
      deletedAt: null,
      createdAt: { lte: new Date(now.getTime() - minutes * 60_000) },
    },
    select: { id: true, name: true, createdAt: true, status: true },
  });
  return rows
    .filter((row) => neverStarted(row.status))
    .map((row) => ({
      team: team.name,
      namespace: team.namespace,
      key: `pending_long:${row.id}`,
      event: "pending_long",
      job: row.name,
      summary: `Job ${row.name} has been pending for more than ${minutes} min`,
      startsAt: new Date(row.createdAt.getTime() + minutes * 60_000).toISOString(),
    }));
}

function neverStarted(status: unknown): boolean {
  if (typeof status !== "object" || status === null) return true;
  const { startTime, conditions } = status as { startTime?: unknown; conditions?: unknown };
  if (startTime) return false;
  if (!Array.isArray(conditions)) return true;
  return !conditions.some(
    (c: { type?: unknown; status?: unknown }) =>
      ["Running", "Succeeded", "Failed"].includes(String(c.type)) && c.status === "True",
  );
}
