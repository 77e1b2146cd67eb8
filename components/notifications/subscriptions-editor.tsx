"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { SelectField } from "@/components/governance/select-field";
import { TextField } from "@/components/governance/text-field";
import { useTRPC } from "@/lib/trpc/client";
import type { EventKind, Subscription } from "@/server/services/notifications/notifications.schema";

export const EVENT_LABEL: Record<EventKind, string> = {
  job_failed: "Job failed",
  job_recovered: "Job recovered after N restarts",
  restart_storm: "Restart storm (N restarts in M minutes)",
  pending_long: "Pending longer than T minutes",
  node_fault: "Node fault under a job",
  preempted: "Job preempted",
  quota_changed: "Quota changed",
};

export function describeSubscription(sub: Subscription): string {
  switch (sub.event) {
    case "job_recovered":
      return `Job recovered after ${sub.restarts}+ restarts`;
    case "restart_storm":
      return `${sub.restarts} restarts in ${sub.minutes} min`;
    case "pending_long":
      return `Pending longer than ${sub.minutes} min`;
    default:
      return EVENT_LABEL[sub.event];
  }
}

/** The subscription the form describes; numbers as typed (the server checks them and names the field). */
function subscriptionOf(event: EventKind, restarts: string, minutes: string): Subscription {
  const n = Number(restarts);
  const m = Number(minutes);
  switch (event) {
    case "job_recovered":
      return { event, restarts: n };
    case "restart_storm":
      return { event, restarts: n, minutes: m };
    case "pending_long":
      return { event, minutes: m };
    default:
      return { event };
  }
}

/** A channel's subscriptions: each removable, and one more added with its parameters. */
export function SubscriptionsEditor(props: {
  team: string;
  channelId: string;
  channelName: string;
  subscriptions: Subscription[];
  canEdit: boolean;
  onChanged: () => void;
}) {
  const trpc = useTRPC();
  const [event, setEvent] = useState<EventKind>("job_failed");
  const [restarts, setRestarts] = useState("3");
  const [minutes, setMinutes] = useState("10");
  const [error, setError] = useState<string | null>(null);
  const options = {
    onSuccess: () => setError(null),
    onError: (e: unknown) => setError(serverRefusal(e).message),
    onSettled: props.onChanged,
  };
  const set = useMutation(trpc.notifications.setSubscription.mutationOptions(options));
  const remove = useMutation(trpc.notifications.removeSubscription.mutationOptions(options));
  const needsRestarts = event === "job_recovered" || event === "restart_storm";
  const needsMinutes = event === "restart_storm" || event === "pending_long";
  return (
    <div className="stack">
      <ul aria-label={`Subscriptions of ${props.channelName}`}>
        {props.subscriptions.length === 0 ? <li className="muted">No subscriptions yet.</li> : null}
        {props.subscriptions.map((sub) => (
          <li key={sub.event}>
            {describeSubscription(sub)}{" "}
            {props.canEdit ? (
              <button
                type="button"
                className="button button-secondary"
                disabled={remove.isPending}
                onClick={() =>
                  remove.mutate({ team: props.team, channelId: props.channelId, event: sub.event })
                }
              >
                Remove
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {props.canEdit ? (
        <div className="stack">
          <SelectField
            id={`event-${props.channelId}`}
            label="Event"
            value={event}
            options={Object.entries(EVENT_LABEL).map(([value, label]) => ({
              value: value as EventKind,
              label,
            }))}
            onChange={setEvent}
          />
          {needsRestarts ? (
            <TextField
              id={`restarts-${props.channelId}`}
              label="N restarts"
              inputMode="numeric"
              value={restarts}
              onChange={setRestarts}
            />
          ) : null}
          {needsMinutes ? (
            <TextField
              id={`minutes-${props.channelId}`}
              label="Minutes"
              inputMode="numeric"
              value={minutes}
              onChange={setMinutes}
            />
          ) : null}
          {error ? (
            <p role="alert" className="form-error">
              Not saved: {error}
            </p>
          ) : null}
          <div>
            <button
              type="button"
              className="button"
              disabled={set.isPending}
              onClick={() =>
                set.mutate({
                  team: props.team,
                  channelId: props.channelId,
                  subscription: subscriptionOf(event, restarts, minutes),
                })
              }
            >
              Subscribe
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
