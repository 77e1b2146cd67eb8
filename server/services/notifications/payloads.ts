import { createHash } from "node:crypto";
import type { ChannelKind, EventKind } from "./notifications.schema";

/** One event for one team, as every channel format is built from it (stored as a delivery's details). */
export type NotificationEvent = {
  /** Names the event (`<kind>:<identity>`): a channel is told of one key once. */
  key: string;
  event: EventKind | "test";
  team: string;
  namespace: string;
  /** The job it concerns; null for team-wide events (quota changed, a test). */
  job: string | null;
  summary: string;
  /** ISO time the event happened. */
  startsAt: string;
};

const TITLES: Record<NotificationEvent["event"], { alertname: string; title: string; severity: string }> = {
  job_failed: { alertname: "ReboundJobFailed", title: "Job failed", severity: "critical" },
  job_recovered: { alertname: "ReboundJobRecovered", title: "Job recovered", severity: "info" },
  restart_storm: { alertname: "ReboundRestartStorm", title: "Restart storm", severity: "warning" },
  pending_long: { alertname: "ReboundJobPendingLong", title: "Job pending", severity: "warning" },
  node_fault: { alertname: "ReboundNodeFault", title: "Node fault", severity: "warning" },
  preempted: { alertname: "ReboundJobPreempted", title: "Job preempted", severity: "warning" },
  quota_changed: { alertname: "ReboundQuotaChanged", title: "Quota changed", severity: "info" },
  test: { alertname: "ReboundTestNotification", title: "Test notification", severity: "info" },
};

/** The labels Alertmanager's receivers group and route on. */
function labelsOf(event: NotificationEvent): Record<string, string> {
  const { alertname, severity } = TITLES[event.event];
  return {
    alertname,
    team: event.team,
    namespace: event.namespace,
    ...(event.job ? { job: event.job } : {}),
    severity,
  };
}

/**
 * Alertmanager's webhook body, version 4 (alertmanager docs/configuration.md, `<webhook_config>`): one firing
 * alert per event; endsAt is the zero time Alertmanager sends for an alert with no end yet.
 */
export function alertmanagerPayload(
  event: NotificationEvent,
  opts: { receiver: string; externalUrl: string },
) {
  const labels = labelsOf(event);
  const annotations = { summary: event.summary };
  const fingerprint = createHash("sha256").update(event.key).digest("hex").slice(0, 16);
  return {
    version: "4",
    groupKey: `{}:{alertname="${labels.alertname}", team="${event.team}"}`,
    truncatedAlerts: 0,
    status: "firing",
    receiver: opts.receiver,
    groupLabels: { alertname: labels.alertname, team: event.team },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: opts.externalUrl,
    alerts: [
      {
        status: "firing",
        labels,
        annotations,
        startsAt: event.startsAt,
        endsAt: "0001-01-01T00:00:00Z",
        generatorURL: opts.externalUrl,
        fingerprint,
      },
    ],
  };
}

/** Slack's incoming-webhook body: `text` is the notification's fallback, `blocks` what the channel shows. */
export function slackPayload(event: NotificationEvent) {
  const { title } = TITLES[event.event];
  const where = [`team *${event.team}*`, `namespace \`${event.namespace}\``];
  if (event.job) where.push(`job \`${event.job}\``);
  return {
    text: `[Rebound] ${title}: ${event.summary}`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: `${title}: ${event.job ?? event.team}` } },
      { type: "section", text: { type: "mrkdwn", text: event.summary } },
      { type: "context", elements: [{ type: "mrkdwn", text: `${where.join(" · ")} · ${event.startsAt}` }] },
    ],
  };
}

export function payloadFor(
  kind: ChannelKind,
  event: NotificationEvent,
  opts: { receiver: string; externalUrl: string },
): unknown {
  switch (kind) {
    case "alertmanager":
      return alertmanagerPayload(event, opts);
    case "slack":
      return slackPayload(event);
    default:
      return kind satisfies never;
  }
}
