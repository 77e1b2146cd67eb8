import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, retryDelayMs } from "./deliver";
import { createChannelInputSchema, urlHint } from "./notifications.schema";
import { alertmanagerPayload, type NotificationEvent, slackPayload } from "./payloads";

const event: NotificationEvent = {
  key: "job_failed:uid-1",
  event: "job_failed",
  team: "llm-research",
  namespace: "hyperpod-ns-llm-research",
  job: "llama",
  summary: "Job llama failed: BackoffLimitExceeded",
  startsAt: "2026-12-07T05:00:00.000Z",
};

describe("notification payloads", () => {
  it("builds Alertmanager's v4 webhook body with one firing alert", () => {
    const body = alertmanagerPayload(event, { receiver: "oncall", externalUrl: "https://rebound.example" });
    const labels = {
      alertname: "ReboundJobFailed",
      team: "llm-research",
      namespace: "hyperpod-ns-llm-research",
      job: "llama",
      severity: "critical",
    };
    expect(body).toEqual({
      version: "4",
      groupKey: '{}:{alertname="ReboundJobFailed", team="llm-research"}',
      truncatedAlerts: 0,
      status: "firing",
      receiver: "oncall",
      groupLabels: { alertname: "ReboundJobFailed", team: "llm-research" },
      commonLabels: labels,
      commonAnnotations: { summary: event.summary },
      externalURL: "https://rebound.example",
      alerts: [
        {
          status: "firing",
          labels,
          annotations: { summary: event.summary },
          startsAt: event.startsAt,
          endsAt: "0001-01-01T00:00:00Z",
          generatorURL: "https://rebound.example",
          fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        },
      ],
    });
    // The fingerprint is the event's: the same event twice is the same alert, another is another.
    const again = alertmanagerPayload(event, { receiver: "x", externalUrl: "" });
    const other = alertmanagerPayload(
      { ...event, key: "job_failed:uid-2" },
      { receiver: "x", externalUrl: "" },
    );
    expect(again.alerts[0]?.fingerprint).toBe(body.alerts[0]?.fingerprint);
    expect(other.alerts[0]?.fingerprint).not.toBe(body.alerts[0]?.fingerprint);
  });

  it("leaves the job label out of a team-wide event", () => {
    const body = alertmanagerPayload(
      { ...event, event: "quota_changed", job: null },
      { receiver: "r", externalUrl: "" },
    );
    expect(Object.keys(body.alerts[0]?.labels ?? {}).sort()).toEqual([
      "alertname",
      "namespace",
      "severity",
      "team",
    ]);
  });

  it("builds Slack's {text, blocks}", () => {
    expect(slackPayload(event)).toEqual({
      text: "[Rebound] Job failed: Job llama failed: BackoffLimitExceeded",
      blocks: [
        { type: "header", text: { type: "plain_text", text: "Job failed: llama" } },
        { type: "section", text: { type: "mrkdwn", text: event.summary } },
        {
          type: "context",
          elements: [
            {
              type: "mrkdwn",
              text: "team *llm-research* · namespace `hyperpod-ns-llm-research` · job `llama` · 2026-12-07T05:00:00.000Z",
            },
          ],
        },
      ],
    });
  });

  it("backs off exponentially, bounded", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((attempts) => retryDelayMs(DEFAULT_RETRY, attempts));
    expect(delays.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(Math.max(...delays)).toBe(DEFAULT_RETRY.maxDelayMs);
  });

  it("hints a URL by host and last 4 characters only, and takes http(s) URLs only", () => {
    expect(urlHint("https://hooks.slack.com/services/T0/B0/abcdefgh1234")).toBe("hooks.slack.com …1234");
    const parse = (url: string) =>
      createChannelInputSchema.safeParse({ team: "t", name: "n", kind: "slack", url }).success;
    expect([
      parse("https://a.example/x"),
      parse("http://a.example"),
      parse("ftp://a.example"),
      parse("a.example"),
    ]).toEqual([true, true, false, false]);
  });
});
